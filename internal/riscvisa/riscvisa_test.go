package riscvisa

import (
	"debug/elf"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fixtureArch reads Tag_RISCV_arch of an ELF fixture built in the riscv64 sandbox.
func fixtureArch(t *testing.T, name string) Attributes {
	t.Helper()
	f, err := elf.Open(filepath.Join("..", "..", "testdata", "elf", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := f.Section(SectionName)
	if s == nil {
		t.Fatalf("%s has no %s", name, SectionName)
	}
	data, err := s.Data()
	if err != nil {
		t.Fatal(err)
	}
	a, err := ParseAttributes(data)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestFixturesAgainstProfiles(t *testing.T) {
	tests := []struct {
		fixture string
		profile string
		beyond  []string
	}{
		{"libriscv64-add.so", "rv64gc", nil},
		{"riscv64-glibc-hello", "rv64gc", nil},
		{"riscv64-add.o", "rv64gc", nil},
		{"libriscv64-add-rvv.so", "rv64gc", []string{"v"}},
		{"libriscv64-add-zbb.so", "rv64gc", []string{"zba", "zbb"}},
		{"libriscv64-add-zbb.so", "rva22u64", nil},
		{"libriscv64-add-rvv.so", "rva22u64", []string{"v"}},
		{"libriscv64-add-rvv.so", "rva23u64", nil},
		{"libriscv64-add-rvv.so", "rv64gcv", nil},
	}
	for _, tt := range tests {
		a := fixtureArch(t, tt.fixture)
		isa, err := ParseISA(a.Arch)
		if err != nil {
			t.Fatalf("%s: %v", tt.fixture, err)
		}
		p, err := LookupProfile(tt.profile)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.beyond, p.Beyond(isa)); diff != "" {
			t.Errorf("%s on %s (arch %s): beyond (-want +got):\n%s", tt.fixture, tt.profile, a.Arch, diff)
		}
	}
	if a := fixtureArch(t, "libriscv64-add.so"); a.StackAlign != 16 {
		t.Errorf("stack align = %d, want 16", a.StackAlign)
	}
}

func TestParseISA(t *testing.T) {
	tests := []struct {
		in   string
		want string // String() of the result
		err  bool
	}{
		{in: "rv64gc", want: "rv64imafdc_zaamo_zalrsc_zca_zcd_zicsr_zifencei_zmmul"},
		{in: "RV64IMAFDC", want: "rv64imafdc_zaamo_zalrsc_zca_zcd_zicsr_zmmul"},
		{in: "rv64i2p1_m2p0_a2p1_f2p2_d2p2_c2p0_zicsr2p0_zifencei2p0_zmmul1p0", want: "rv64imafdc_zaamo_zalrsc_zca_zcd_zicsr_zifencei_zmmul"},
		{in: "rv64i_mafdc_zba", want: "rv64imafdc_zaamo_zalrsc_zba_zca_zcd_zicsr_zmmul"},
		{in: "rv32e", want: "rv32e"},
		{in: "rv64i_zvl128b1p0", want: "rv64i_zvl128b_zvl32b_zvl64b"},
		{in: "x86-64", err: true},
		{in: "rv64", err: true},
		{in: "rv64q", err: true},
		{in: "rv64i_m-x", err: true},
	}
	for _, tt := range tests {
		isa, err := ParseISA(tt.in)
		if (err != nil) != tt.err {
			t.Errorf("ParseISA(%q) error = %v, want error %v", tt.in, err, tt.err)
			continue
		}
		if err != nil {
			if !errors.Is(err, ErrBadISA) {
				t.Errorf("ParseISA(%q) error %v does not wrap ErrBadISA", tt.in, err)
			}
			continue
		}
		if got := isa.String(); got != tt.want {
			t.Errorf("ParseISA(%q).String() = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestUnionAndHas(t *testing.T) {
	a, _ := ParseISA("rv64gc")
	b, _ := ParseISA("rv64gcv")
	u := Union(a, b)
	if !u.Has("v") || !u.Has("zcd") || !u.Has("zve32x") {
		t.Errorf("union %s lacks v, zcd or zve32x", u)
	}
	if Union(ISA{}, a).String() != a.String() {
		t.Error("union with the zero ISA changed it")
	}
	p, _ := LookupProfile("rv64gc")
	if got := p.Beyond(u); !cmp.Equal(got, []string{"v"}) {
		t.Errorf("beyond = %v, want [v]", got)
	}
	p32, _ := LookupProfile("rv32gc")
	if got := p32.Beyond(a); len(got) == 0 || got[0] != "rv64" {
		t.Errorf("rv64 file on an rv32 profile: beyond = %v, want rv64 first", got)
	}
	if _, err := LookupProfile("rvz"); err == nil {
		t.Error("LookupProfile accepted a bogus name")
	}
}

func TestParseAttributesHostile(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("..", "..", "testdata", "elf", "libriscv64-add.so"))
	if err != nil {
		t.Fatal(err)
	}
	f, _ := elf.Open(filepath.Join("..", "..", "testdata", "elf", "libriscv64-add.so"))
	defer f.Close()
	sec, _ := f.Section(SectionName).Data()
	_ = good
	tests := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"wrong version", []byte("B")},
		{"truncated length", []byte{'A', 1, 0}},
		{"length beyond the data", []byte{'A', 0xff, 0xff, 0xff, 0x7f, 'r'}},
		{"length under its own size", []byte{'A', 2, 0, 0, 0}},
		{"unterminated vendor", []byte{'A', 9, 0, 0, 0, 'r', 'i', 's', 'c', 'v'}},
		{"sub-subsection length beyond", append([]byte{'A', 16, 0, 0, 0, 'r', 'i', 's', 'c', 'v', 0, 1, 0xff, 0xff, 0xff, 0xff}, 0)},
		{"unterminated arch", []byte{'A', 15, 0, 0, 0, 'r', 'i', 's', 'c', 'v', 0, 1, 8, 0, 0, 0, 5, 'r', 'v'}},
		{"over-long leb", append([]byte{'A', 24, 0, 0, 0, 'r', 'i', 's', 'c', 'v', 0, 1, 13, 0, 0, 0, 4}, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 1)},
		{"too big", append([]byte{'A'}, make([]byte, MaxSectionSize)...)},
		{"truncated real", sec[:len(sec)-3]},
	}
	for _, tt := range tests {
		if _, err := ParseAttributes(tt.data); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: error = %v, want ErrMalformed", tt.name, err)
		}
	}
}

func FuzzParseAttributes(f *testing.F) {
	for _, name := range []string{"libriscv64-add.so", "libriscv64-add-rvv.so", "riscv64-glibc-hello"} {
		e, err := elf.Open(filepath.Join("..", "..", "testdata", "elf", name))
		if err != nil {
			f.Fatal(err)
		}
		d, _ := e.Section(SectionName).Data()
		e.Close()
		f.Add(d)
	}
	f.Add([]byte{'A', 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := ParseAttributes(data)
		if err != nil {
			return
		}
		if isa, err := ParseISA(a.Arch); err == nil {
			p, _ := LookupProfile("rv64gc")
			_ = p.Beyond(isa)
			_ = isa.String()
		}
	})
}

func FuzzParseISA(f *testing.F) {
	for _, s := range []string{"rv64gc", "rv64i2p1_m2p0_a2p1_f2p2_d2p2_c2p0_v1p0_zicsr2p0", "rv32e", "rv64i_sv39", "rv64gc_xtheadba"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		isa, err := ParseISA(s)
		if err != nil {
			return
		}
		// What String writes parses again to the same set.
		again, err := ParseISA(isa.String())
		if err != nil {
			t.Fatalf("ParseISA(%q) = %s, which does not parse: %v", s, isa, err)
		}
		if !cmp.Equal(isa.Extensions(), again.Extensions()) {
			t.Fatalf("round trip of %q changed the extensions: %v vs %v", s, isa.Extensions(), again.Extensions())
		}
	})
}
