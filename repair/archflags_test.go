package repair

import (
	"context"
	"os"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// TestForeignFlagsOfEachArchitecture checks one line per architecture of
// [foreignArchFlags], and the flags riscv64 shares, which stay.
func TestForeignFlagsOfEachArchitecture(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"arm32 copts", "list(APPEND HWY_FLAGS -march=armv7-a -mfpu=neon-vfpv4 -mfloat-abi=hard -mfp16-format=ieee)", "list(APPEND HWY_FLAGS)"},
		{"arm64", "CFLAGS += -march=armv8-a+crc+crypto -mtune=cortex-a72 -O2", "CFLAGS += -O2"},
		{"arm thumb", "CFLAGS = -mthumb -marm -mthumb-interwork -g", "CFLAGS = -g"},
		{"arm server cpu", `set(FLAGS "-mcpu=neoverse-n1 -moutline-atomics")`, `set(FLAGS "")`},
		{"powerpc", "OPT = -mcpu=power9 -mtune=power9 -maltivec -mvsx -O3", "OPT = -O3"},
		{"powerpc vectors", "CFLAGS += -mabi=altivec -mpower8-vector -mno-altivec", "CFLAGS +="},
		{"s390x", "add_compile_options(-march=z14 -mzvector)", "add_compile_options()"},
		{"loongarch", "CFLAGS = -march=loongarch64 -mlsx -mlasx", "CFLAGS ="},
		{"mips", "CFLAGS = -mips32r2 -mmsa -O2", "CFLAGS = -O2"},
		{"x86 as before", "CFLAGS = -O2 -m64 -msse4.2 -march=haswell", "CFLAGS = -O2"},
	}
	for _, tt := range tests {
		got, ok := RemoveForeignFlags(tt.in)
		if !ok || got != tt.want {
			t.Errorf("%s: RemoveForeignFlags(%q) = %q, %t; want %q", tt.name, tt.in, got, ok, tt.want)
		}
	}
	for _, keep := range []string{"-march=rv64gcv1p0", "-mcpu=sifive-u74 -mtune=sifive-7-series", "-mabi=lp64d -mstrict-align", "-marmalade", "-mfloat-abi", "-Wl,-march"} {
		if got, ok := RemoveForeignFlags(keep); ok {
			t.Errorf("RemoveForeignFlags(%q) = %q, want no change", keep, got)
		}
	}
}

// TestForeignFlagErrors checks the refusals riscv64's compiler prints, and messages
// about riscv64's own flags, which the rule must not claim.
func TestForeignFlagErrors(t *testing.T) {
	claims := []string{
		"c++: error: ‘-march=armv7-a’: ISA string must begin with rv32 or rv64",
		"c++: error: unrecognized command-line option ‘-mfpu=neon-vfpv4’",
		"cc: error: unrecognized command-line option '-mfloat-abi=hard'",
		"cc1: error: unknown cpu 'power9' for '-mcpu'",
		"cc: error: unrecognized command-line option '-maltivec'; did you mean '-mabi'?",
		"cc: error: unrecognized command-line option '-m64'",
		"cc: error: ‘-march=native’: ISA string must begin with rv32 or rv64",
	}
	for _, m := range claims {
		if !foreignFlagError.MatchString(m) {
			t.Errorf("%q is not claimed", m)
		}
	}
	for _, m := range []string{
		"cc1: error: unknown cpu 'sifive-x280' for '-mcpu'",
		"cc: error: '-march=rv64gcv_zvfh': unsupported ISA subset 'zvfh'",
		"cc: error: unrecognized command-line option '-mno-relax-foo'",
	} {
		if foreignFlagError.MatchString(m) {
			t.Errorf("%q is claimed", m)
		}
	}
}

// TestForeignFlagsHighway is the real failure: highway 1.2.0 configured with the
// distribution's switches (its armhf branch's -DHWY_CMAKE_ARM7:BOOL=ON, before the
// switches were read for riscv64) compiles with the ARM copts of its CMakeLists.txt.
// The fix removes them and keeps the RISC-V branch's -march=rv64gcv1p0.
func TestForeignFlagsHighway(t *testing.T) {
	log := readLog(t, "foreign-flags-highway.log")
	cml, err := os.ReadFile("testdata/cmake/highway-1.2.0.txt")
	if err != nil {
		t.Fatal(err)
	}
	tree := memTree{"CMakeLists.txt": string(cml), "hwy/abort.cc": "\n"}
	plan := defaultPlan("cmake -DHWY_CMAKE_ARM7:BOOL=ON -DHWY_CMAKE_RVV:BOOL=OFF -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)")
	f := Failure{Category: atesor.CategoryArchitecture, Message: "c++: error: ‘-march=armv7-a’: ISA string must begin with rv32 or rv64", Output: log, Phase: "build", Command: plan.Phases[1].Commands[0]}
	fix, notes := Propose(context.Background(), f, Env{Platform: debian(t), Plan: plan, Files: tree.files(), ReadFile: tree.read}, nil)
	if fix == nil || fix.Rule != "foreign-arch-flags" || len(fix.Actions) != 1 || fix.Actions[0].File != "CMakeLists.txt" {
		t.Fatalf("fix = %+v, notes %v", fix, notes)
	}
	diff := fix.Actions[0].Diff
	for _, gone := range []string{"-      -march=armv7-a\n", "-      -mfpu=neon-vfpv4\n", "-      -mfloat-abi=hard  # must match the toolchain specified as CXX=\n", "-        -mfp16-format=ieee  # required for vcvt_f32_f16\n"} {
		if !strings.Contains(diff, gone) {
			t.Errorf("the patch does not remove %q:\n%s", gone, diff)
		}
	}
	if strings.Contains(diff, "rv64gcv1p0") || strings.Contains(diff, "-Wno-psabi") {
		t.Errorf("the patch touches riscv64's or portable flags:\n%s", diff)
	}
}
