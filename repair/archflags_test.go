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

// ParaFly 0.1.0's shipped configure sets AM_CXXFLAGS=-m64 (configure.ac's AC_SUBST), so
// editing the Makefiles it writes is undone by the next ./configure: the script itself
// is edited, and configure.ac is left alone.
func TestForeignFlagsShippedConfigure(t *testing.T) {
	out := "g++ -DHAVE_CONFIG_H -I. -I..    -pedantic -fopenmp -Wall -m64 -g -O2 -c -o ParaFly.o ParaFly.cpp\n" +
		"g++: error: unrecognized command-line option \u2018-m64\u2019\nmake[2]: *** [Makefile:235: ParaFly.o] Error 1\n"
	tree := memTree{
		"configure":       "#! /bin/sh\n# Guess values for system-dependent variables\nAM_CXXFLAGS=-m64\n\nac_config_files=\"$ac_config_files Makefile src/Makefile\"\n",
		"configure.ac":    "AC_INIT([ParaFly], [0.1.0])\nAC_SUBST([AM_CXXFLAGS], [-m64])\n",
		"src/Makefile.in": "AM_CXXFLAGS = @AM_CXXFLAGS@\n",
	}
	f := Failure{Category: atesor.ClassifyError(out), Message: out, Output: out, Phase: "build", Command: "./configure && make -j$(nproc)"}
	env := Env{Platform: debian(t), Plan: defaultPlan("./configure && make -j$(nproc)"), Files: tree.files(), ReadFile: tree.read,
		Detection: &atesor.Detection{BuildSystem: atesor.BuildAutotools, ShippedConfigure: true}}
	fix, why := makeArchFlags(context.Background(), f, env)
	if fix == nil {
		t.Fatal(why)
	}
	if len(fix.Actions) != 1 || fix.Actions[0].File != "configure" || !strings.Contains(fix.Actions[0].Diff, "-AM_CXXFLAGS=-m64\n+AM_CXXFLAGS=\n") {
		t.Errorf("fix %+v, want configure's AM_CXXFLAGS=-m64 edited and nothing else", fix)
	}
	if err := check(fix, "/workspace/parafly"); err != nil {
		t.Errorf("the fix fails validation: %v", err)
	}
}
