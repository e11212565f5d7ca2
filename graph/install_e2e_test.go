package graph

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/install"
	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
	"github.com/eclipse-atesor/atesor-go/recipe"
)

const cjsonFile = "cjson_1.7.18.orig.tar.gz"

// TestE2EInstalledFilesArePrimary ports cJSON offline. Its out-of-tree CMake build puts
// the test driver cJSON_test and the unity test programs of tests/ next to the library;
// the install step stages the library, the header, the pkg-config file and the CMake
// package files. Only the installed ELF files may be primary artifacts, the ctest
// metadata must mark the test programs, and the dev files must be listed.
//
//	ATESOR_E2E=1 go test -p 1 -timeout 30m -run TestE2EInstalledFilesArePrimary ./graph/
func TestE2EInstalledFilesArePrimary(t *testing.T) {
	tier.Long(t)
	e2e(t)
	e := newE2EEnv(t)
	src := debiantest.SourceTarball(t, "cjson", cjsonFile)
	start := time.Now()
	res, err := e.pipeline(t, nil).Run(context.Background(), atesor.Request{Source: src, TestTimeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cjson: %s in %s", res.Status, time.Since(start).Round(time.Second))
	checkVerified(t, e, res, "libcjson.so")
	rep := e.report(t, res.Package)
	inst := rep.Install
	if inst == nil || !inst.OK || inst.ArtifactsFrom != atesor.ArtifactsFromInstall || inst.Method != "cmake" {
		t.Fatalf("install = %+v", inst)
	}
	stage := install.StageDir("/workspace/" + res.Package)
	var primaries, secondaries []string
	for _, a := range rep.Artifacts {
		if a.Role == atesor.ArtifactPrimary {
			primaries = append(primaries, a.Path)
			if !strings.HasPrefix(a.Path, stage+"/") {
				t.Errorf("primary artifact %s was not installed", a.Path)
			}
		} else {
			secondaries = append(secondaries, a.Path)
		}
	}
	t.Logf("primary: %v", primaries)
	t.Logf("secondary: %v", secondaries)
	t.Logf("test programs from %v: %v", inst.TestProgramsFrom, inst.TestPrograms)
	t.Logf("dev files: %v", inst.DevFiles)
	mixed := false
	for _, p := range secondaries {
		if path.Base(p) == "cJSON_test" || strings.Contains(p, "/tests/") {
			mixed = true
		}
	}
	if !mixed {
		t.Errorf("the build tree held no test program next to the library: %v", secondaries)
	}
	if !slices.Contains(inst.TestProgramsFrom, "ctest") || !slices.ContainsFunc(inst.TestPrograms, func(p string) bool { return path.Base(p) == "cJSON_test" }) {
		t.Errorf("the ctest metadata did not mark cJSON_test: %v from %v", inst.TestPrograms, inst.TestProgramsFrom)
	}
	for _, want := range []string{"include/cjson/cJSON.h", "pkgconfig/libcjson.pc", "cJSONConfig.cmake"} {
		if !slices.ContainsFunc(inst.DevFiles, func(f string) bool { return strings.HasSuffix(f, want) }) {
			t.Errorf("dev files lack %s: %v", want, inst.DevFiles)
		}
	}
	if _, err := os.Stat(filepath.Join(e.out, res.Package+"_install.tar.gz")); err != nil {
		t.Errorf("install tarball: %v", err)
	}
	md, _ := os.ReadFile(filepath.Join(e.out, res.Package+"_recipe.md"))
	if cmds, _ := recipe.Commands(string(md)); !slices.ContainsFunc(cmds, func(c string) bool { return strings.Contains(c, "cmake --install") }) {
		t.Errorf("the recipe block lacks the install command: %q", cmds)
	}
}
