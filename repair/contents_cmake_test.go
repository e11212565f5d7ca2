package repair

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// TestCMakePackageProviders: a CMake package configuration file below usr/lib or
// usr/share names its package by the name find_package() takes, in either of CMake's
// two spellings and in any case; a file of that name in documentation, or a module that is not
// a configuration file, names nothing. missing-package installs the package for the
// real log of kodi-pvr-mythtv's find_package(Kodi).
func TestCMakePackageProviders(t *testing.T) {
	contents := strings.Join([]string{
		"usr/lib/riscv64-linux-gnu/kodi/cmake/KodiConfig.cmake   libdevel/kodi-addons-dev",
		"usr/lib/riscv64-linux-gnu/cmake/fmt/fmt-config.cmake   libdevel/libfmt-dev",
		"usr/share/cmake/Catch2/Catch2Config.cmake   devel/catch2",
		"usr/share/doc/foo/examples/BarConfig.cmake   doc/foo-doc",
		"usr/share/cmake-3.31/Modules/FindZLIB.cmake   devel/cmake-data",
		"usr/lib/riscv64-linux-gnu/cmake/Qux/QuxConfigVersion.cmake   libdevel/libqux-dev",
	}, "\n") + "\n"
	c, err := ParseContents(strings.NewReader(contents), "riscv64-linux-gnu")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]string{
		"Kodi": {"kodi-addons-dev"}, "kodi": {"kodi-addons-dev"}, "fmt": {"libfmt-dev"}, "Catch2": {"catch2"},
		"Bar": nil, "ZLIB": nil, "Qux": nil, "QuxConfigVersion": nil,
	} {
		if d := cmp.Diff(want, c.Providers(KindCMakePackage, name)); d != "" {
			t.Errorf("%q (-want +got):\n%s", name, d)
		}
	}
	log, err := os.ReadFile("testdata/missing-package-cmake-kodi-pvr-mythtv.log")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]Missing{{KindCMakePackage, "Kodi"}}, FindMissing(string(log))); d != "" {
		t.Errorf("FindMissing (-want +got):\n%s", d)
	}
	f := Failure{Category: atesor.ClassifyError(string(log)), Message: string(log), Phase: "build"}
	fix, why := makeMissingPackage(t.Context(), f, Env{Platform: debian(t), Packages: c})
	if fix == nil {
		t.Fatalf("no fix: %s", why)
	}
	if len(fix.Actions) != 1 || !strings.HasSuffix(fix.Actions[0].Command, " kodi-addons-dev") {
		t.Errorf("actions %+v", fix.Actions)
	}
}

// TestCMakePackagePropose: in the whole rule table, kodi-pvr-mythtv's required Kodi
// package is installed by missing-package (cmake-optional-package leaves a package that
// gates no test, benchmark or tool alone).
func TestCMakePackagePropose(t *testing.T) {
	log, err := os.ReadFile("testdata/missing-package-cmake-kodi-pvr-mythtv.log")
	if err != nil {
		t.Fatal(err)
	}
	c, err := ParseContents(strings.NewReader("usr/lib/riscv64-linux-gnu/kodi/cmake/KodiConfig.cmake   libdevel/kodi-addons-dev\n"), "riscv64-linux-gnu")
	if err != nil {
		t.Fatal(err)
	}
	tree := memTree{"CMakeLists.txt": "cmake_minimum_required(VERSION 3.5)\nproject(pvr.mythtv)\n\nset(CMAKE_MODULE_PATH ${CMAKE_MODULE_PATH} ${PROJECT_SOURCE_DIR})\n\ninclude(ExternalProject)\n" +
		"\nfind_package(Kodi REQUIRED)\nfind_package(ZLIB REQUIRED)\n"}
	build := "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"
	f := Failure{Category: atesor.ClassifyError(string(log)), Message: string(log), Phase: "build", Command: build}
	env := Env{Platform: debian(t), Packages: c, Files: tree.files(), ReadFile: tree.read,
		Plan: &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "build", Commands: []string{build}}}}}
	fix, notes := Propose(t.Context(), f, env, nil)
	if fix == nil || fix.Rule != "missing-package" {
		t.Fatalf("fix %+v (notes %q)", fix, notes)
	}
	if len(fix.Actions) != 1 || !strings.HasSuffix(fix.Actions[0].Command, " kodi-addons-dev") {
		t.Errorf("actions %+v", fix.Actions)
	}
}
