package optimize

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseInsnCount(t *testing.T) {
	for _, tc := range []struct {
		out  string
		want uint64
		ok   bool
	}{
		{"atesor-insns: 153092\n", 153092, true},
		{"atesor-insns: 1\natesor-insns: 22195550\n", 22195550, true}, // the last report counts
		{"warning: something\natesor-insns: 42", 42, true},
		{"", 0, false},
		{"atesor-insns: \n", 0, false},
		{"atesor-insns: -5\n", 0, false},
		{"xatesor-insns: 5\n", 0, false},
		{"atesor-insns: 99999999999999999999999\n", 0, false}, // overflows uint64
	} {
		n, ok := ParseInsnCount(tc.out)
		if n != tc.want || ok != tc.ok {
			t.Errorf("ParseInsnCount(%q) = %d, %t; want %d, %t", tc.out, n, ok, tc.want, tc.ok)
		}
	}
}

func FuzzParseInsnCount(f *testing.F) {
	f.Add("atesor-insns: 153092\n")
	f.Add("atesor-insns: 1\r\natesor-insns: 2")
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := ParseInsnCount(s)
		if !ok && n != 0 {
			t.Errorf("no count but n=%d", n)
		}
		if ok && !strings.Contains(s, "atesor-insns: ") {
			t.Errorf("a count from %q", s)
		}
	})
}

func TestCountable(t *testing.T) {
	for _, tc := range []struct {
		line, why string
	}{
		{"./programs/lz4 -b", ""},
		{"./.atesor-bench", ""},
		{`./build/minigzip -9 -c 'data file.txt' "x"`, ""},
		{"make bench", "a tool found on PATH"},
		{"go test -run '^$' -bench . ./...", "a tool found on PATH"},
		{"make test && make check", "not one program"},
		{"./a | ./b", "not one program"},
		{"./a > out", "not one program"},
		{"FOO=1 ./a", "not one program"},
		{"./a $HOME", "not plain words"},
		{`./a "$(id)"`, "not plain words"},
		{"./a; ./b", "not one simple command"},
		{"./a '", "not one simple command"},
	} {
		got := countable(tc.line)
		if (tc.why == "") != (got == "") || !strings.Contains(got, tc.why) {
			t.Errorf("countable(%q) = %q, want %q", tc.line, got, tc.why)
		}
	}
}

func FuzzCountable(f *testing.F) {
	f.Add("./programs/lz4 -b")
	f.Add("make bench")
	f.Fuzz(func(t *testing.T, s string) {
		if countable(s) == "" && !strings.Contains(s, "/") {
			t.Errorf("%q counted without a program path", s)
		}
	})
}

func TestParseLdd(t *testing.T) {
	const out = `	linux-vdso.so.1 (0x00007ffd)
	libglib-2.0.so.0 => /lib/x86_64-linux-gnu/libglib-2.0.so.0 (0x00007f6c)
	libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f6b)
	/lib64/ld-linux-x86-64.so.2 (0x00007f6e)
`
	libs, loader, err := ParseLdd(out)
	if err != nil || loader != "/lib64/ld-linux-x86-64.so.2" || len(libs) != 2 || libs["libc.so.6"] != "/lib/x86_64-linux-gnu/libc.so.6" {
		t.Fatalf("ParseLdd: %v %q %v", libs, loader, err)
	}
	if _, _, err := ParseLdd(out + "\tliburing.so.2 => not found\n"); err == nil || !strings.Contains(err.Error(), "liburing.so.2 is not found") {
		t.Errorf("a missing library: %v", err)
	}
	if _, _, err := ParseLdd("\tnot a dynamic executable\n"); err == nil {
		t.Error("a static program gave libraries")
	}
}

func FuzzParseLdd(f *testing.F) {
	f.Add("\tlibc.so.6 => /lib/libc.so.6 (0x1)\n\t/lib64/ld.so (0x2)\n")
	f.Fuzz(func(t *testing.T, s string) {
		libs, loader, err := ParseLdd(s)
		if err == nil && (loader == "" || len(libs) == 0) {
			t.Errorf("%q: no error but loader %q libs %v", s, loader, libs)
		}
	})
}

// Under emulation each accepted variant runs once more under the counting emulator;
// the counts go to the variants, the table and the label. A rejected variant is not
// counted, and a counted run that fails is a note, never a number.
func TestInstructionCounts(t *testing.T) {
	sb := &fakeSandbox{help: lz4Help, variants: map[string]fakeVariant{
		"baseline": {size: "4756415", dur: 10 * time.Second, insns: 2_000_000},
		"O3":       {size: "4756415", dur: 8 * time.Second, insns: 1_500_000},
		"O3-rvv":   {size: "1", dur: 3 * time.Second, insns: 9},
		"O3-lto":   {size: "4756415", dur: 9 * time.Second}, // its counted run fails
	}}
	emulated := true
	o := &Optimizer{Sandbox: sb, Emulated: &emulated,
		CounterTools: func(context.Context) (string, error) { return "/host/cache/insncount/abc", nil }}
	res, err := o.Run(context.Background(), lz4Target())
	if err != nil {
		t.Fatal(err)
	}
	p := res.Performance
	if p.InstructionCounts != insnLabel {
		t.Errorf("label %q", p.InstructionCounts)
	}
	for name, want := range map[string]uint64{"baseline": 2_000_000, "O3": 1_500_000, "O3-rvv": 0, "O3-lto": 0} {
		if v := variantByName(t, p, name); v.Instructions != want {
			t.Errorf("%s: %d instructions, want %d", name, v.Instructions, want)
		}
	}
	if !strings.Contains(strings.Join(p.Notes, "\n"), "variant O3-lto: instructions not counted: the counted run exited 1: qemu: Could not load plugin") {
		t.Errorf("notes %q", p.Notes)
	}
	if len(sb.copies) != 1 || sb.copies[0] != "/host/cache/insncount/abc -> "+CounterInSandbox {
		t.Errorf("copies %q", sb.copies)
	}
	var counted []string
	for _, c := range sb.execs {
		if strings.Contains(c.Line, " -plugin ") {
			counted = append(counted, variantOf(c.Dir))
			if !strings.Contains(c.Line, CounterCommand(CounterInSandbox)+" ./programs/lz4 -b >/dev/null") {
				t.Errorf("counted run %q", c.Line)
			}
		}
	}
	if strings.Join(counted, ",") != "baseline,O3,O3-lto" {
		t.Errorf("counted runs of %v: want one per accepted variant", counted)
	}
	sec := Section(p)
	for _, want := range []string{"guest instructions (emulated) |", "| 2000000 |", "| 1500000 |", "not the processes it starts"} {
		if !strings.Contains(sec, want) {
			t.Errorf("section lacks %q:\n%s", want, sec)
		}
	}
}

func TestInstructionCountsUnavailable(t *testing.T) {
	toolsFail := func(context.Context) (string, error) {
		return "", errors.New("no instruction counter: the host has no C compiler")
	}
	tools := func(context.Context) (string, error) { return "/host/tools", nil }
	for _, tc := range []struct {
		name     string
		emulated bool
		tools    func(context.Context) (string, error)
		help     string
		want     string
	}{
		{"hardware", false, tools, lz4Help, insnHardware},
		{"not configured", true, nil, lz4Help, "unavailable: no instruction counter is set up for this sandbox"},
		{"tools fail", true, toolsFail, lz4Help, "unavailable: no instruction counter: the host has no C compiler"},
		// No benchmark flag: the test suite (make test) is the workload.
		{"build tool workload", true, tools, "usage: lz4", "unavailable: the workload runs make, a tool found on PATH"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sb := &fakeSandbox{help: tc.help, variants: map[string]fakeVariant{"baseline": {size: "1", dur: time.Second, insns: 5}}}
			emulated := tc.emulated
			o := &Optimizer{Sandbox: sb, Emulated: &emulated, Candidates: []Candidate{}, CounterTools: tc.tools}
			res, err := o.Run(context.Background(), lz4Target())
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Performance.InstructionCounts; !strings.HasPrefix(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			for _, v := range res.Performance.Variants {
				if v.Instructions != 0 {
					t.Errorf("%s has %d instructions", v.Name, v.Instructions)
				}
			}
			for _, c := range sb.execs {
				if strings.Contains(c.Line, " -plugin ") {
					t.Errorf("a counted run: %q", c.Line)
				}
			}
		})
	}
}
