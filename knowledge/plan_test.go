package knowledge

import (
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// unsafePlan are the scout safety rules a default plan must pass.
var unsafePlan = regexp.MustCompile(`\|\|\s*(true|:)|;\s*true\b|/path/to/|your_username|example\.com|/home/|riscv64-[a-z-]*-(gcc|g\+\+)|--host=|--build=|--target=|CMAKE_TOOLCHAIN_FILE|GOARCH=|GOOS=|CROSS_COMPILE|-m64|-march=`)

func TestDefaultPlanTrees(t *testing.T) {
	deb, _ := Profile("debian")
	tests := []struct {
		tree  string
		want  []string
		tests []string
	}{
		{"cmake-basic", []string{"apt-get update && apt-get install -y build-essential cmake pkgconf zlib1g-dev libcurl4-openssl-dev",
			"cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"}, []string{"ctest --test-dir build"}},
		{"meson-basic", []string{"apt-get update && apt-get install -y build-essential meson ninja-build pkgconf zlib1g-dev libpcre2-dev",
			"meson setup builddir && ninja -C builddir"}, []string{"meson test -C builddir"}},
		{"configure-old-guess", []string{"apt-get update && apt-get install -y build-essential pkgconf automake",
			`cp "$(automake --print-libdir)/config.guess" build-aux/config.guess`, `cp "$(automake --print-libdir)/config.sub" build-aux/config.sub`,
			"./configure && make -j$(nproc)"}, []string{"make check"}},
		{"configure-handwritten", []string{"apt-get update && apt-get install -y build-essential pkgconf", "./configure && make -j$(nproc)"}, []string{"make check"}},
		{"configure-autoconf", []string{"apt-get update && apt-get install -y build-essential pkgconf libxml2-dev zlib1g-dev", "./configure && make -j$(nproc)"}, []string{"make check"}},
		{"autotools-ac", []string{"apt-get update && apt-get install -y build-essential autoconf automake libtool pkgconf make libxml2-dev zlib1g-dev",
			"autoreconf -fi && ./configure && make -j$(nproc)"}, []string{"make check"}},
		{"make-basic", []string{"apt-get update && apt-get install -y build-essential pkgconf libyaml-dev zlib1g-dev", "make -j$(nproc)"},
			[]string{"make test"}},
		{"go-cmd", []string{"apt-get update && apt-get install -y golang-go", "GOTOOLCHAIN=auto go build -buildvcs=false -o bin/ ./cmd/tool ./cmd/helper"}, []string{"GOTOOLCHAIN=auto go test ./..."}},
		{"go-subdir", []string{"apt-get update && apt-get install -y golang-go build-essential pkgconf libsqlite3-dev zlib1g-dev", "cd go && GOTOOLCHAIN=auto go build -buildvcs=false -o bin/ ."}, []string{"cd go && GOTOOLCHAIN=auto go test ./..."}},
		{"cargo-basic", []string{"apt-get update && apt-get install -y build-essential cargo pkgconf libssl-dev zlib1g-dev", "cargo build --release"}, []string{"cargo test --release"}},
		{"cargo-subdir", []string{"apt-get update && apt-get install -y build-essential cargo pkgconf", "cd rust && cargo build --release"}, []string{"cd rust && cargo test --release"}},
		{"cJSON", []string{"apt-get update && apt-get install -y build-essential cmake pkgconf",
			"cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"}, []string{"ctest --test-dir build"}},
		{"xxHash", []string{"apt-get update && apt-get install -y build-essential pkgconf", "make -j$(nproc)"}, []string{"make check"}},
		{"libyaml", []string{"apt-get update && apt-get install -y build-essential cmake pkgconf",
			"cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"}, []string{"ctest --test-dir build"}},
		{"expat", []string{"apt-get update && apt-get install -y build-essential cmake pkgconf libbsd-dev",
			"cmake -S expat -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"}, []string{"ctest --test-dir build"}},
		{"pcre2-10.45", []string{"apt-get update && apt-get install -y build-essential pkgconf libbz2-dev zlib1g-dev libreadline-dev libedit-dev",
			"./configure && make -j$(nproc)"}, []string{"make check"}},
		// go.mod asks for go 1.25 and trixie has 1.24: GOTOOLCHAIN=auto fetches it.
		{"gizmo", []string{"apt-get update && apt-get install -y golang-go", "GOTOOLCHAIN=auto go build -buildvcs=false -o bin/ ./cmd/gizmo ./cmd/gizmoctl"},
			[]string{"GOTOOLCHAIN=auto go test ./..."}},
		{"cargo-workspace", []string{"apt-get update && apt-get install -y build-essential cargo pkgconf zlib1g-dev libssl-dev", "cargo build --release"},
			[]string{"cargo test --release"}},
		{"meson-subprojects", []string{"apt-get update && apt-get install -y build-essential meson ninja-build pkgconf zlib1g-dev libcurl4-openssl-dev",
			"meson setup builddir && ninja -C builddir"}, []string{"meson test -C builddir"}},
		{"dbscan", []string{"apt-get update && apt-get install -y build-essential r-base-dev r-cran-generics r-cran-rcpp",
			"mkdir -p .atesor-rlib && R CMD INSTALL --no-docs --no-html --library=.atesor-rlib ."}, nil},
		{"Crypt-Rijndael", []string{"apt-get update && apt-get install -y build-essential make perl libperl-dev",
			"PERL_MM_USE_DEFAULT=1 perl -I. Makefile.PL && make -j$(nproc)"}, []string{"make test"}},
		// Platform makefiles: make -f names them, in the build directory.
		{"boxshade", []string{"apt-get update && apt-get install -y build-essential pkgconf", "make -f makefile.unx -j$(nproc)"}, nil},
		{"lutefisk", []string{"apt-get update && apt-get install -y build-essential pkgconf", "make -C src -f Makefile.linux -j$(nproc)"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.tree, func(t *testing.T) {
			det, err := Detect(context.Background(), filepath.Join(treesDir, tt.tree))
			if err != nil {
				t.Fatal(err)
			}
			plan, tests, err := DefaultPlan(det, deb)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, plan.Commands()); d != "" {
				t.Errorf("commands (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.tests, tests); d != "" {
				t.Errorf("test commands (-want +got):\n%s", d)
			}
			checkPlan(t, plan)
		})
	}
}

func checkPlan(t *testing.T, plan atesor.BuildPlan) {
	t.Helper()
	if len(plan.Phases) == 0 {
		t.Fatal("plan has no phases")
	}
	for _, ph := range plan.Phases {
		if ph.Name == "" || len(ph.Commands) == 0 {
			t.Errorf("phase %+v is empty", ph)
		}
		for _, c := range ph.Commands {
			if unsafePlan.MatchString(c) {
				t.Errorf("plan command breaks a safety rule: %q", c)
			}
			if strings.Contains(c, "ctest") || strings.Contains(c, "make check") || strings.Contains(c, "go test") || strings.Contains(c, "cargo test") {
				t.Errorf("plan runs tests: %q", c)
			}
		}
	}
}

func TestDefaultPlanAlpineAndLayouts(t *testing.T) {
	alp, _ := Profile("alpine")
	plan, _, err := DefaultPlan(&atesor.Detection{BuildSystem: atesor.BuildCMake, BuildDir: "build/cmake",
		Dependencies: []atesor.Dependency{{Name: "zlib"}, {Name: "github.com/x/y"}, {Name: "zlib"}, {Name: "unknownlib"}}}, alp)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"apk update && apk add --no-cache build-base cmake pkgconf zlib-dev",
		"cmake -S build/cmake -B build-riscv64 -DCMAKE_BUILD_TYPE=Release && cmake --build build-riscv64 -j$(nproc)"}
	if d := cmp.Diff(want, plan.Commands()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	plan, tests, _ := DefaultPlan(&atesor.Detection{BuildSystem: atesor.BuildMeson, BuildDir: "build/meson"}, alp)
	if got := plan.Commands()[1]; got != "meson setup builddir build/meson && ninja -C builddir" {
		t.Errorf("meson in a subdirectory: %q", got)
	}
	if tests[0] != "meson test -C builddir" {
		t.Errorf("meson tests: %v", tests)
	}
	plan, _, _ = DefaultPlan(&atesor.Detection{BuildSystem: atesor.BuildMake, BuildDir: "src"}, alp)
	if got := plan.Commands()[1]; got != "make -C src -j$(nproc)" {
		t.Errorf("make in a subdirectory: %q", got)
	}
	plan, _, _ = DefaultPlan(&atesor.Detection{BuildSystem: atesor.BuildGo, ModuleDir: "."}, alp)
	if got := plan.Commands()[1]; got != "GOTOOLCHAIN=auto go build -buildvcs=false ./... && GOTOOLCHAIN=auto go test -buildvcs=false -c -o bin/ ./..." {
		t.Errorf("go library: %q", got)
	}
}

func TestDefaultPlanErrorsAndDiscovery(t *testing.T) {
	deb, _ := Profile("debian")
	if _, _, err := DefaultPlan(nil, deb); !errors.Is(err, ErrNoDetection) {
		t.Errorf("nil detection: %v", err)
	}
	if _, _, err := DefaultPlan(&atesor.Detection{BuildSystem: atesor.BuildMake}, atesor.Platform{Name: "x"}); err == nil {
		t.Error("a platform without install command was accepted")
	}
	if _, _, err := DefaultPlan(&atesor.Detection{BuildSystem: atesor.BuildMake, BuildDir: "../up"}, deb); err == nil {
		t.Error("a build directory outside the repository was accepted")
	}
	plan, tests, err := DefaultPlan(&atesor.Detection{BuildSystem: atesor.BuildUnknown}, deb)
	if err != nil || tests != nil {
		t.Fatalf("unknown: %v %v", err, tests)
	}
	if d := cmp.Diff(DiscoveryPlan(deb), plan); d != "" {
		t.Errorf("unknown build system does not give the discovery plan:\n%s", d)
	}
	checkPlan(t, plan)
	if got := plan.Phases[len(plan.Phases)-1].Commands[0]; !strings.Contains(got, "exit 1") || !strings.Contains(got, "CMakeLists.txt") {
		t.Errorf("discovery build: %q", got)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{"cmd/tool": "cmd/tool", "a b": "'a b'", "x;rm": "'x;rm'", "it's": `'it'\''s'`, "": "''"} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %q, want %q", in, got, want)
		}
	}
}
