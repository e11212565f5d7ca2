package repair

import (
	"context"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// bloscOptions are the option() lines of c-blosc 1.21.5's CMakeLists.txt (Debian's
// +ds tarball lacks its internal-complibs/ with the bundled LZ4, zlib and zstd).
const bloscOptions = `project(blosc)
option(BUILD_STATIC "Build a static version of the blosc library." ON)
option(BUILD_TESTS "Build test programs form the blosc compression library" ON)
option(DEACTIVATE_LZ4 "Do not include support for the LZ4 library." OFF)
option(DEACTIVATE_SNAPPY "Do not include support for the Snappy library." ON)
option(PREFER_EXTERNAL_LZ4 "Find and use external LZ4 library instead of included sources." OFF)
option(PREFER_EXTERNAL_ZLIB "Find and use external Zlib library instead of included sources." OFF)
option(PREFER_EXTERNAL_ZSTD "Find and use external Zstd library instead of included sources." OFF)
option(USE_SYSTEM_FOO "already on" ON)
option(NO_EXTERNAL_BAR "a negative switch" OFF)
option(CMAKE_FIND_PACKAGE_PREFER_CONFIG "a search-mode knob" OFF)
option(BLOSC_USE_VENDORED_JSON "use the bundled json header" ON)
option(USE_BUNDLED_OFF "a bundled copy already off" OFF)
option(BUNDLED_SYSTEM_MIX "says both: ambiguous" ON)
option(NO_BUNDLED_BAZ "a negative switch" ON)
option(DOWNLOAD_DEPS "fetches at configure time" ON)
add_subdirectory(blosc)
`

func TestSystemCopySwitches(t *testing.T) {
	tree := memTree{"CMakeLists.txt": bloscOptions, "blosc/CMakeLists.txt": "add_library(blosc blosc.c)\n"}
	env := Env{Files: tree.files(), ReadFile: tree.read}
	want := "-DBLOSC_USE_VENDORED_JSON=OFF -DPREFER_EXTERNAL_LZ4=ON -DPREFER_EXTERNAL_ZLIB=ON -DPREFER_EXTERNAL_ZSTD=ON"
	if got := strings.Join(systemCopySwitches(context.Background(), env, "1.21.5+ds-1"), " "); got != want {
		t.Errorf("repacked: %q, want %q", got, want)
	}
	if got := systemCopySwitches(context.Background(), env, "1.21.5-1"); len(got) != 0 {
		t.Errorf("not repacked: %q, want none", got)
	}

	// Through the rule, when the distribution's debian/rules cannot be read.
	plan := &atesor.BuildPlan{Phases: []atesor.Phase{
		{Name: "setup", Commands: []string{"apt-get update && apt-get install -y build-essential cmake pkgconf"}},
		{Name: "build", Commands: []string{"cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"}}}}
	dist := distOf(&Distribution{Package: "c-blosc", Version: "1.21.5+ds-1", BuildDepends: []string{"cmake", "liblz4-dev", "zlib1g-dev", "libzstd-dev"},
		Unread: "HTTP 404 Not Found"})
	f := Failure{Category: atesor.CategoryLinking, Phase: "build", Packaged: true,
		Message: "/usr/bin/riscv64-linux-gnu-ld: ../blosc/libblosc_testing.so: undefined reference to `LZ4_compress_HC'"}
	fix, why := makeDistributionConfigure(context.Background(), f, Env{Platform: debian(t), Plan: plan, Files: tree.files(), ReadFile: tree.read, Distribution: dist})
	if fix == nil {
		t.Fatalf("no fix: %s", why)
	}
	if build := fix.Plan.Phases[1].Commands[0]; !strings.Contains(build, want) {
		t.Errorf("configure line %q lacks %q", build, want)
	}
	if !strings.Contains(fix.Analysis, "system's copies") || strings.Contains(fix.Analysis, "(its debian/rules)") {
		t.Errorf("analysis %q", fix.Analysis)
	}
}
