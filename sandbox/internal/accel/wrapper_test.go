package accel

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestWrapperScript runs a compiler wrapper with the host's shell in place of the native
// one: a compile runs the native program with its arguments and input unchanged, and one
// that loads a plugin (on its command line or in a response file) the emulated one.
func TestWrapperScript(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	w := wrapper{name: "cc1", shell: sh, native: filepath.Join(dir, "native", "cc1"), emulated: filepath.Join(dir, "emulated", "cc1")}
	// Each program says which it is, its arguments one a line, and its input.
	for _, p := range []string{w.native, w.emulated} {
		mustWrite(t, p, []byte("#!"+sh+"\necho "+filepath.Base(filepath.Dir(p))+"\nfor a do echo \"[$a]\"; done\ncat\n"), 0o755)
	}
	wrapperFile := filepath.Join(dir, "cc1")
	mustWrite(t, wrapperFile, wrapperScript(w), 0o755)
	mustWrite(t, filepath.Join(dir, "plugin.rsp"), []byte("-O2\n-fplugin=./p.so\n"), 0o644)
	mustWrite(t, filepath.Join(dir, "plain.rsp"), []byte("-O2\n-fplugin-arg-p-x=1"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"plain", []string{"-quiet", "a b.c", "-o", "-"}, "native"},
		{"plugin", []string{"-quiet", "-fplugin=/usr/lib/gcc/riscv64-linux-gnu/14/plugin/p.so", "-fplugin-arg-p-x=1", "a.c"}, "emulated"},
		{"short plugin name", []string{"a.c", "-fplugin=p"}, "emulated"},
		{"plugin argument only", []string{"-fplugin-arg-p-x=1", "a.c"}, "native"},
		{"response file with a plugin", []string{"@" + filepath.Join(dir, "plugin.rsp"), "a.c"}, "emulated"},
		{"response file without", []string{"@" + filepath.Join(dir, "plain.rsp"), "@" + filepath.Join(dir, "missing.rsp")}, "native"},
		{"no arguments", nil, "native"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(wrapperFile, tc.args...)
			cmd.Stdin = strings.NewReader("int x;\n")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			want := tc.want + "\n"
			for _, a := range tc.args {
				want += "[" + a + "]\n"
			}
			want += "int x;\n"
			if string(out) != want {
				t.Errorf("got\n%s\nwant\n%s", out, want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.rsp")); err == nil {
		t.Error("the wrapper made a file")
	}
}
