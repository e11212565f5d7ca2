package crates

import (
	"strings"
	"testing"
)

func TestTargetMatches(t *testing.T) {
	tests := []struct {
		spec string
		want bool
	}{
		{"cfg(unix)", true},
		{"cfg(windows)", false},
		{`cfg(target_os = "linux")`, true},
		{`cfg(target_os="macos")`, false},
		{`cfg(target_arch = "riscv64")`, true},
		{`cfg(target_arch = "x86_64")`, false},
		{`cfg(target_pointer_width = "64")`, true},
		{`cfg(target_pointer_width = "32")`, false},
		{`cfg(target_family = "unix")`, true},
		{`cfg(target_family = "wasm")`, false},
		{`cfg(target_env = "gnu")`, true},
		{`cfg(target_env = "musl")`, false},
		{`cfg(target_endian = "little")`, true},
		{`cfg(target_vendor = "apple")`, false},
		{`cfg(target_has_atomic = "64")`, true},
		{`cfg(target_has_atomic = "128")`, false},
		{`cfg(not(target_arch = "wasm32"))`, true},
		{`cfg(any(target_os = "linux", target_os = "android"))`, true},
		{`cfg(all(target_family= "unix",not(target_os = "macos")))`, true},
		{`cfg(all(unix, not(target_os = "linux")))`, false},
		{"cfg(any())", false},
		{"cfg(all())", true},
		{`cfg(any(windows, unix,))`, true},
		// Names rustc does not set for the target are unset, as cargo treats them.
		{"cfg(test)", false},
		{"cfg(debug_assertions)", true},
		{"cfg(not(debug_assertions))", false},
		{`cfg(panic = "unwind")`, true},
		{`cfg(panic = "abort")`, false},
		{`cfg(target_feature = "d")`, true},
		{`cfg(target_feature = "v")`, false},
		{`cfg(target_abi = "")`, true},
		{`cfg(target_abi = "eabihf")`, false},
		{`cfg(feature = "std")`, false},
		{`cfg(tokio_unstable)`, false},
		{`cfg(not(tokio_unstable))`, true},
		{`cfg(target_os = "li\u006eux")`, true},
		{"riscv64gc-unknown-linux-gnu", true},
		{"x86_64-pc-windows-msvc", false},
		{" cfg( unix ) ", true},
	}
	for _, tt := range tests {
		got, err := RISCV64.Matches(tt.spec)
		if err != nil {
			t.Errorf("Matches(%q): %v", tt.spec, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Matches(%q) = %v, want %v", tt.spec, got, tt.want)
		}
	}
}

func TestParseCfgRefuses(t *testing.T) {
	deep := "cfg(" + strings.Repeat("not(", 100) + "unix" + strings.Repeat(")", 101)
	for _, s := range []string{
		"cfg(", "cfg()", "cfg(unix", "cfg(unix))", `cfg(target_os = linux)`, `cfg(target_os = "linux)`,
		"cfg(not(unix, windows))", "cfg(not())", "cfg(all(unix windows))", "cfg(1abc)", "unix", deep,
		`cfg(target_os = "\q")`,
	} {
		if _, err := ParseCfg(s); err == nil {
			t.Errorf("ParseCfg(%q) succeeded", s)
		}
	}
	if _, err := RISCV64.Matches("cfg(unix"); err == nil {
		t.Error("a malformed cfg in a target key is not an error")
	}
}

func FuzzParseCfg(f *testing.F) {
	for _, s := range []string{"cfg(unix)", `cfg(all(target_family= "unix",not(target_os = "macos")))`, `cfg(any(target_os = "a\"b", x))`, "cfg(not(not(not(windows))))"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseCfg(s)
		if err != nil {
			return
		}
		// Evaluation terminates and agrees with not(...) of itself.
		neg, err := ParseCfg("cfg(not(" + strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(s), "cfg("), ")") + "))")
		if err == nil && neg.Eval(RISCV64) == e.Eval(RISCV64) {
			t.Fatalf("%q and its negation agree", s)
		}
	})
}
