package repair

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

func TestParseLocated(t *testing.T) {
	out := "/usr/include/doctest/doctest.h\tdoctest-dev: /usr/include/doctest/doctest.h\n" +
		"/usr/include/stdio.h\tlibc6-dev:riscv64: /usr/include/stdio.h\n" +
		"/usr/include/x/doctest.h\ta-dev, b-dev:riscv64: /usr/include/x/doctest.h\n" +
		"/usr/local/include/doctest.h\t\n" +
		"/usr/include/y/doctest.h\tother: /usr/include/z/doctest.h\n" + // another file's line: no owner
		"/usr/include/w/doctest.h\tBAD NAME;rm: /usr/include/w/doctest.h\n" +
		"/etc/doctest.h\tx: /etc/doctest.h\n" + // outside the include roots
		"/usr/include/../etc/doctest.h\tx: /usr/include/../etc/doctest.h\n" +
		"/usr/include/doctest/doctest.hpp\tdoctest-dev: /usr/include/doctest/doctest.hpp\n" + // another name
		"/usr/include/doctest/doctest.h\tdoctest-dev: /usr/include/doctest/doctest.h\n" // twice
	got := parseLocated(out, "doctest.h")
	want := []HeaderFile{
		{Path: "/usr/include/doctest/doctest.h", Packages: []string{"doctest-dev"}},
		{Path: "/usr/include/x/doctest.h", Packages: []string{"a-dev", "b-dev"}},
		{Path: "/usr/local/include/doctest.h"},
		{Path: "/usr/include/y/doctest.h"},
		{Path: "/usr/include/w/doctest.h"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parseLocated (-want +got):\n%s", diff)
	}
	if got := parseLocated(out, "stdio.h"); len(got) != 1 || !slices.Equal(got[0].Packages, []string{"libc6-dev"}) {
		t.Errorf("stdio.h: %+v", got)
	}
}

// FuzzParseLocated: whatever the sandbox prints, the files are below an include root,
// end in the name asked for, and their packages are package names.
func FuzzParseLocated(f *testing.F) {
	f.Add("/usr/include/doctest/doctest.h\tdoctest-dev: /usr/include/doctest/doctest.h\n", "doctest.h")
	f.Add("/usr/include/eigen3/Eigen/Dense\tlibeigen3-dev:riscv64: /usr/include/eigen3/Eigen/Dense\n", "Eigen/Dense")
	f.Add("/usr/local/include/a.h\t\n/usr/include/../a.h\tx: y\n", "a.h")
	f.Fuzz(func(t *testing.T, out, name string) {
		for _, h := range parseLocated(out, name) {
			if !strings.HasSuffix(h.Path, "/"+name) || !strings.HasPrefix(h.Path, "/usr/include/") && !strings.HasPrefix(h.Path, "/usr/local/include/") ||
				strings.Contains(h.Path, "/../") {
				t.Fatalf("file %q for %q", h.Path, name)
			}
			for _, p := range h.Packages {
				if !debianPackage.MatchString(p) {
					t.Fatalf("package %q", p)
				}
			}
		}
	})
}

// TestSandboxLocatorRefuses: a name or package that could carry shell syntax, a glob or
// a way out of the include roots never reaches a command line.
func TestSandboxLocatorRefuses(t *testing.T) {
	p := debian(t)
	sb := sandboxtest.New(t, p)
	locate := SandboxLocator(sb, p, nil)
	for _, name := range []string{"../etc/passwd", "a/../../b.h", "x.h'; reboot; '", "*.h", "a[b].h", "$(id).h", "-name", "/usr/include/x.h", ".h", ""} {
		if _, err := locate(context.Background(), name, nil); err == nil {
			t.Errorf("name %q: no error", name)
		}
	}
	for _, pkg := range []string{"doctest-dev;reboot", "-o=APT::x", "Foo", "a b"} {
		if _, err := locate(context.Background(), "doctest.h", []string{pkg}); err == nil {
			t.Errorf("package %q: no error", pkg)
		}
	}
	if lines := sb.Lines(); len(lines) != 0 {
		t.Errorf("commands ran: %q", lines)
	}
}

// TestSandboxLocatorCommands: packages are installed with the platform's commands and
// network, the search runs without network, and a failed install is an error.
func TestSandboxLocatorCommands(t *testing.T) {
	p := debian(t)
	sb := sandboxtest.New(t, p)
	sb.OnPrefix("find ", sandboxtest.OK("/usr/include/doctest/doctest.h\tdoctest-dev: /usr/include/doctest/doctest.h\n"))
	got, err := SandboxLocator(sb, p, []string{"SOURCE_DATE_EPOCH=1"})(context.Background(), "doctest.h", []string{"doctest-dev"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Path != "/usr/include/doctest/doctest.h" {
		t.Errorf("located %+v", got)
	}
	cmds := sb.Commands()
	if len(cmds) != 2 || cmds[0].Line != p.UpdateCommand+" && "+p.InstallCommand+" doctest-dev" || !cmds[0].Network || cmds[1].Network ||
		!slices.Contains(cmds[1].Env, "SOURCE_DATE_EPOCH=1") {
		t.Errorf("commands %+v", cmds)
	}
	bad := sandboxtest.New(t, p)
	bad.OnPrefix(p.UpdateCommand, sandboxtest.Fail(100, "E: Unable to locate package nope-dev"))
	if _, err := SandboxLocator(bad, p, nil)(context.Background(), "x.h", []string{"nope-dev"}); err == nil || !strings.Contains(err.Error(), "Unable to locate package") {
		t.Errorf("a failed install: %v", err)
	}
}

// TestLocateScriptOnHost runs the search on this machine's own include directory: the
// script's shell and find words work, and dpkg's owner comes back.
func TestLocateScriptOnHost(t *testing.T) {
	if _, err := os.Stat("/usr/include/stdio.h"); err != nil {
		t.Skip("no /usr/include/stdio.h on this machine")
	}
	if _, err := exec.LookPath("dpkg-query"); err != nil {
		t.Skip("no dpkg-query on this machine")
	}
	h, err := sandbox.NewHost(atesor.Platform{}, sandbox.WithWorkdir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	got, err := SandboxLocator(h, atesor.Platform{}, nil)(context.Background(), "stdio.h", nil)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(got, func(f HeaderFile) bool { return f.Path == "/usr/include/stdio.h" })
	if i < 0 || !slices.Contains(got[i].Packages, "libc6-dev") {
		t.Errorf("located %+v, want /usr/include/stdio.h of libc6-dev", got)
	}
	for _, f := range got {
		if !strings.HasSuffix(f.Path, "/stdio.h") {
			t.Errorf("located %s", f.Path)
		}
	}
}
