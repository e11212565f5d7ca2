package validate

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
)

func TestPlanLine(t *testing.T) {
	runCases(t, "PlanLine", PlanLine, []cmdCase{
		{"./configure --prefix=/usr/local", true, ""},
		{"make -j$(nproc)", true, ""},
		{"cmake -S . -B build && cmake --build build -j$(nproc)", true, ""},
		{"mkdir -p build && cd build && cmake .. && make", true, ""},
		{"cd build && make install", true, ""},
		{"apt-get update && apt-get install -y zlib1g-dev cmake", true, ""},
		{"go build -o bin/tool ./cmd/tool", true, ""},
		{"cargo build --release", true, ""},
		{"meson setup builddir && ninja -C builddir", true, ""},
		{"test -f configure || ./autogen.sh", true, ""},
		{"make CC=gcc", true, ""},
		{"export CFLAGS=-O2; make", true, ""},
		{"make || true", false, ruleFailureHiding},
		{"make || :", false, ruleFailureHiding},
		{"make || exit 0", false, ruleFailureHiding},
		{`make || echo "build failed"`, false, ruleFailureHiding},
		{"make check || { true; }", false, ruleFailureHiding},
		{"make; true", false, ruleFailureHiding},
		{"cd /path/to/project && make", false, rulePlaceholder},
		{"git clone https://github.com/your_username/x", false, rulePlaceholder},
		{"curl https://example.com/x.tar.gz", false, rulePlaceholder},
		{"cd /home/user/zlib && make", false, ruleHomePath},
		{"riscv64-unknown-linux-gnu-gcc -o x x.c", false, ruleCross},
		{"make CC=riscv64-linux-gnu-gcc", true, ""},
		{"CC=riscv64-linux-gnu-gcc-13 ./configure", true, ""},
		{"CC=aarch64-linux-gnu-gcc-13 ./configure", false, ruleCross},
		{"./configure --host=riscv64-linux-gnu", true, ""},
		{"./configure --ho=x86_64-linux-gnu", false, ruleCross},
		{"make CROSS_COMPILE=riscv64-linux-gnu-", false, ruleCross},
		{"CROSS_COMPILE=riscv64- make", false, ruleCross},
		{"cmake -DCMAKE_TOOLCHAIN_FILE=riscv.cmake -B build", false, ruleCross},
		{"meson setup --cross-file riscv.ini build", false, ruleCross},
		{"aarch64-linux-gnu-strip bin/x", false, ruleCross},
		{"apt-get install -y build", false, ruleGoSubcmdPkg},
		{"apk add mod", false, ruleGoSubcmdPkg},
		{"apk add --no-cache go && apk add build", false, ruleGoSubcmdPkg},
		{"cd build && cmake -B build ..", false, ruleNestedBuild},
		{"mkdir build && cd build && cmake -Bbuild ..", false, ruleNestedBuild},
		{"cd build && cmake --build build", false, ruleNestedBuild},
		{"cd build && cmake --build .", true, ""},
		{"cmake -B build && cd build && make", true, ""},
		{"make && rm -rf /usr", false, ruleRmRoot},
		{"make && apt-get remove -y gcc", false, rulePkgRemove},
		{"make; rm -rf ~", false, ruleRmRoot},
		{"make && git push", false, ruleGitHistory},
		{"", false, rulePlanShape},
		{"make 'oops", false, ruleParse},
	})
}

func TestBuildPlan(t *testing.T) {
	good := &atesor.BuildPlan{Phases: []atesor.Phase{
		{Name: "deps", Commands: []string{"apt-get update", "apt-get install -y zlib1g-dev"}},
		{Name: "build", Commands: []string{"cmake -S . -B build", "cmake --build build -j$(nproc)"}},
		{Name: "test", Commands: []string{"ctest --test-dir build"}},
	}}
	if err := BuildPlan(good); err != nil {
		t.Fatalf("BuildPlan(good) = %v", err)
	}
	bad := []struct {
		name string
		p    *atesor.BuildPlan
		rule string
	}{
		{"nil", nil, rulePlanShape},
		{"no phases", &atesor.BuildPlan{}, rulePlanShape},
		{"no name", &atesor.BuildPlan{Phases: []atesor.Phase{{Commands: []string{"make"}}}}, rulePlanShape},
		{"no commands", &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "build"}}}, rulePlanShape},
		{"empty command", &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "build", Commands: []string{" "}}}}, rulePlanShape},
		{"only tests", &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "t", Commands: []string{"make check", "ctest"}}}}, ruleOnlyTests},
		{"hidden rm", &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "b", Commands: []string{"make", "make && rm -rf /usr"}}}}, ruleRmRoot},
	}
	for _, tc := range bad {
		err := BuildPlan(tc.p)
		var r *Rejection
		if !errors.As(err, &r) || r.Rule != tc.rule {
			t.Errorf("BuildPlan(%s) = %v, want rule %s", tc.name, err, tc.rule)
		}
	}
}

func TestStripTestCommands(t *testing.T) {
	tests := []struct {
		line    string
		kept    string
		removed []string
	}{
		{"make", "make", nil},
		{"make && make check", "make", []string{"make check"}},
		{"make all check", "make all", []string{"make check"}},
		{"make -j4 check", "", []string{"make -j4 check"}},
		{"make -C build test", "", []string{"make -C build test"}},
		{"ctest --test-dir build", "", []string{"ctest --test-dir build"}},
		{"cd build && ctest --output-on-failure", "", []string{"cd build && ctest --output-on-failure"}},
		{"cd build && make && make test && make install", "cd build && make && make install", []string{"cd build && make test"}},
		{"go build ./... && go test ./...", "go build ./...", []string{"go test ./..."}},
		{"cargo build --release && cargo test", "cargo build --release", []string{"cargo test"}},
		{"meson test -C builddir", "", []string{"meson test -C builddir"}},
		{"ninja -C build test", "", []string{"ninja -C build test"}},
		{"ninja -C build", "ninja -C build", nil},
		{"cmake --build build --target test", "", []string{"cmake --build build --target test"}},
		{"make check 2>&1 | tee test.log", "", []string{"make check 2>&1 | tee test.log"}},
		{"make; make check", "make", []string{"make check"}},
		{"(cd build && make && ctest)", "(cd build && make)", []string{"cd build && ctest"}},
		{"go vet ./...", "go vet ./...", nil},
		{"make testing-tool", "make testing-tool", nil},
	}
	for _, tc := range tests {
		p := atesor.BuildPlan{Phases: []atesor.Phase{{Name: "p", Commands: []string{tc.line}}}}
		got, removed := StripTestCommands(p)
		var kept string
		if len(got.Phases) > 0 {
			kept = got.Phases[0].Commands[0]
		}
		if kept != tc.kept {
			t.Errorf("StripTestCommands(%q) kept %q, want %q", tc.line, kept, tc.kept)
		}
		if diff := cmp.Diff(tc.removed, removed); diff != "" {
			t.Errorf("StripTestCommands(%q) removed (-want +got):\n%s", tc.line, diff)
		}
	}
	// The input is not modified, and phases left empty are dropped.
	p := atesor.BuildPlan{Phases: []atesor.Phase{
		{Name: "build", Commands: []string{"make"}},
		{Name: "test", Commands: []string{"make check", "ctest"}},
	}}
	got, removed := StripTestCommands(p)
	want := atesor.BuildPlan{Phases: []atesor.Phase{{Name: "build", Commands: []string{"make"}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"make check", "ctest"}, removed); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
	if len(p.Phases) != 2 || len(p.Phases[1].Commands) != 2 {
		t.Errorf("input plan modified: %+v", p)
	}
}
