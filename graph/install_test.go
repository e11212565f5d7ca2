package graph

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/recipe"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// TestInstallStagingChoosesInstalledFiles ports the vecsum sample with a build that
// leaves a library, the program and a check program in the tree, and an install step
// that stages the program, the library and the header: the staged ELF files are the
// primary artifacts, the check program (named by check_PROGRAMS) is a test program, the
// header is a development file, and the install tree is written as a tarball.
func TestInstallStagingChoosesInstalledFiles(t *testing.T) {
	h := newHarness(t, false)
	if err := os.WriteFile(filepath.Join(h.src, "Makefile.am"), []byte("bin_PROGRAMS = vecsum\ncheck_PROGRAMS = runner \\\n  other$(EXEEXT)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.sb.Add(sandboxtest.Rule{
		Match: func(c atesor.Command) bool {
			return strings.HasPrefix(c.Line, "make") && !strings.Contains(c.Line, "check")
		},
		Plant: map[string]sandboxtest.Fixture{
			"vecsum": sandboxtest.RISCV64Executable, "libvecsum.a": sandboxtest.RISCV64StaticLibrary,
			"runner": sandboxtest.RISCV64Executable,
		},
	})
	stage := "/workspace/vecsum/.atesor-stage"
	h.sb.Add(sandboxtest.Rule{
		Match: func(c atesor.Command) bool { return strings.Contains(c.Line, "make install DESTDIR='"+stage+"'") },
		Plant: map[string]sandboxtest.Fixture{
			stage + "/usr/local/bin/vecsum":      sandboxtest.RISCV64SharedLibrary, // a different hash than the tree's
			stage + "/usr/local/lib/libvecsum.a": sandboxtest.RISCV64StaticLibrary,
		},
	})
	h.sb.OnPrefix(`find . \( -type f -o -type l \) -print`, sandboxtest.OK("./usr/local/bin/vecsum\n./usr/local/include/vecsum.h\n./usr/local/lib/libvecsum.a\n"))
	res := h.run()
	if !res.Verified {
		t.Fatalf("status %s: %s", res.Status, res.Reason)
	}
	rep := h.report()
	inst := rep.Install
	if inst == nil || !inst.OK || inst.ArtifactsFrom != atesor.ArtifactsFromInstall || inst.Method != "make" {
		t.Fatalf("install = %+v", inst)
	}
	var primary []string
	roles := map[string]atesor.ArtifactRole{}
	for _, a := range rep.Artifacts {
		roles[a.Path] = a.Role
		if a.Role == atesor.ArtifactPrimary {
			primary = append(primary, a.Path)
		}
	}
	want := []string{stage + "/usr/local/bin/vecsum", stage + "/usr/local/lib/libvecsum.a"}
	if diff := cmp.Diff(want, primary); diff != "" {
		t.Errorf("primary artifacts (-want +got):\n%s", diff)
	}
	if roles["/workspace/vecsum/runner"] != atesor.ArtifactSecondary || roles["/workspace/vecsum/vecsum"] != atesor.ArtifactSecondary {
		t.Errorf("build-tree roles: %v", roles)
	}
	if _, dup := roles["/workspace/vecsum/libvecsum.a"]; dup {
		t.Error("the build tree's copy of an installed library is listed again")
	}
	if !slices.Contains(inst.TestPrograms, "/workspace/vecsum/runner") || !slices.Contains(inst.TestProgramsFrom, "automake") {
		t.Errorf("test programs %v from %v", inst.TestPrograms, inst.TestProgramsFrom)
	}
	if diff := cmp.Diff([]string{"usr/local/include/vecsum.h"}, inst.DevFiles); diff != "" {
		t.Errorf("dev files (-want +got):\n%s", diff)
	}
	md, _ := os.ReadFile(filepath.Join(h.out, "vecsum_recipe.md"))
	cmds, err := recipe.Commands(string(md))
	if err != nil || len(cmds) == 0 || !strings.Contains(cmds[len(cmds)-1], "make install DESTDIR=") {
		t.Errorf("the install command is not the recipe's last command: %q %v", cmds, err)
	}
	installs := 0
	for _, c := range h.sb.Commands() {
		if strings.HasPrefix(c.Line, "make") && !strings.Contains(c.Line, "check") && !slices.Contains(c.Env, "SOURCE_DATE_EPOCH="+itoa(res.State.SourceDateEpoch)) {
			t.Errorf("%q ran without SOURCE_DATE_EPOCH (env %q)", c.Line, c.Env)
		}
		// The install step has its own bound; the build's commands keep the sandbox's.
		switch isInstall := strings.Contains(c.Line, "make install"); {
		case isInstall && c.Timeout != installTimeout:
			t.Errorf("install command %q ran with timeout %s, want %s", c.Line, c.Timeout, installTimeout)
		case !isInstall && strings.HasPrefix(c.Line, "make") && c.Timeout == installTimeout:
			t.Errorf("build command %q got the install timeout", c.Line)
		}
		if strings.Contains(c.Line, "make install") {
			installs++
		}
	}
	if installs == 0 {
		t.Error("no install command ran")
	}
	if res.State.SourceDateEpoch <= 0 {
		t.Error("no SOURCE_DATE_EPOCH from the source")
	}
	names := tarNames(t, filepath.Join(h.out, "vecsum_install.tar.gz"))
	if !slices.Contains(names, "usr/local/lib/libvecsum.a") || res.Files[atesor.FileInstall] == "" {
		t.Errorf("install tarball entries %v, files %v", names, res.Files)
	}
}

// TestInstallFailureFallsBackToRules: a failing install step leaves the choice to the
// curator rules, and the report says so.
func TestInstallFailureFallsBackToRules(t *testing.T) {
	h := newHarness(t, false)
	h.sb.OnPrefix(`rm -rf '/workspace/vecsum/.atesor-stage' && make install DESTDIR='/workspace/vecsum/.atesor-stage'`, sandboxtest.Fail(2, "make: *** No rule to make target 'install'.  Stop."))
	h.builds(0, "riscv64-glibc-hello")
	res := h.run()
	if !res.Verified {
		t.Fatalf("status %s: %s", res.Status, res.Reason)
	}
	inst := h.report().Install
	if inst == nil || inst.OK || inst.ArtifactsFrom != atesor.ArtifactsFromRules || !strings.Contains(inst.Error, "No rule to make target") {
		t.Fatalf("install = %+v", inst)
	}
	recipe, _ := os.ReadFile(filepath.Join(h.out, "vecsum_recipe.md"))
	if !strings.Contains(string(recipe), "The curator rules chose the primary artifacts") {
		t.Errorf("the recipe does not say the rules chose:\n%s", recipe)
	}
}

// installTimeout is the install step's own bound on one install command.
const installTimeout = 15 * time.Minute

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func tarNames(t *testing.T, p string) []string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	gz, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
	}
}
