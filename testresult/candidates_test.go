package testresult

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCMakeTestOptions(t *testing.T) {
	tests := []struct {
		name, lists string
		want        []string
	}{
		{"gated by BUILD_TESTING off", "project(double-conversion)\noption(BUILD_TESTING \"Build test programs\" OFF)\nif(BUILD_TESTING)\n  enable_testing()\nendif()\n", []string{"BUILD_TESTING"}},
		{"CTest module", "include(CTest)\nadd_subdirectory(tests)\n", []string{"BUILD_TESTING"}},
		{"own option off", "option(PUGIXML_BUILD_TESTS \"Build tests\" OFF)\n", []string{"PUGIXML_BUILD_TESTS"}},
		{"own option without default", "option(WITH_TESTS \"Build test programs\")\n", []string{"WITH_TESTS"}},
		{"option on by default is left alone", "option(ENABLE_CJSON_TEST \"Enable building cJSON test\" ON)\n", nil},
		{"options that are not test switches", "option(JANSSON_WITHOUT_TESTS \"Don't build tests\" OFF)\noption(SKIP_TESTS \"\" OFF)\noption(ENABLE_FUZZ_TESTING \"\" OFF)\n", nil},
		{"no tests", "project(x C)\nadd_library(x x.c)\n", nil},
	}
	for _, tt := range tests {
		if got := CMakeTestOptions(tt.lists); !cmp.Equal(got, tt.want) {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestMakeTestTargets(t *testing.T) {
	tests := []struct {
		makefile string
		want     []string
	}{
		{"all: lib\n\ntest: all\n\t./example\n\ncheck: test\n", []string{"check", "test"}},
		{".PHONY: tests\ntests:\n\t$(MAKE) -C tests\n", []string{"tests"}},
		{"check-local:\n\ttrue\nTEST = 1\ntest_x: y\n", nil},
		{"all install: lib\n", nil},
		{"CHECK := check\n", nil},
	}
	for _, tt := range tests {
		if got := MakeTestTargets(tt.makefile); !cmp.Equal(got, tt.want) {
			t.Errorf("MakeTestTargets(%q) = %q, want %q", tt.makefile, got, tt.want)
		}
	}
}

func TestRerunCommand(t *testing.T) {
	tests := []struct {
		framework, cmd string
		names          []string
		want           string
		ok             bool
	}{
		{CTest, "ctest --test-dir build --output-on-failure", []string{"test_strtod", "a.b"}, `ctest --test-dir build --output-on-failure -R '^(test_strtod|a\.b)$'`, true},
		{Meson, "meson test -C builddir", []string{"zstd:basic / round trip"}, "meson test -C builddir 'round trip'", true},
		{Automake, "make check", []string{"tests/it's"}, `make check TESTS='tests/it'\''s'`, true},
		{GoTest, "go test -json ./...", []string{"p.TestX"}, "", false},
		{CTest, "cd build && ctest", []string{"x"}, "", false},
		{CTest, "ctest", nil, "", false},
	}
	for _, tt := range tests {
		got, ok := RerunCommand(tt.framework, tt.cmd, tt.names)
		if got != tt.want || ok != tt.ok {
			t.Errorf("RerunCommand(%s, %q, %q) = %q, %t; want %q, %t", tt.framework, tt.cmd, tt.names, got, ok, tt.want, tt.ok)
		}
	}
}
