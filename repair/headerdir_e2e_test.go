package repair

import (
	"context"
	"testing"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/e2e"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// TestE2EHeaderHomes runs the header-subdir rule with the real sandbox's locator on a
// compiler's message for each header its tables know: the package the tables name is
// installed, the header found where trixie keeps it, and that directory put on CPATH.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EHeaderHomes$' ./repair/
func TestE2EHeaderHomes(t *testing.T) {
	e2e.Long(t)
	e2e.Root(t)
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Minute)
	defer cancel()
	p, sb := openE2ESandbox(ctx, t)
	locate := SandboxLocator(sb, p, nil)
	for _, c := range []struct{ name, dir, pkg string }{
		{"doctest.h", "/usr/include/doctest", "doctest-dev"},
		{"json.hpp", "/usr/include/nlohmann", "nlohmann-json3-dev"},
		{"stb_image.h", "/usr/include/stb", "libstb-dev"},
		{"utf8.h", "/usr/include/utf8cpp", "libutfcpp-dev"},
		{"Eigen/Dense", "/usr/include/eigen3", "libeigen3-dev"},
	} {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			out := "/workspace/p/a.cpp:1:10: fatal error: " + c.name + ": No such file or directory\n"
			env := Env{Platform: p, Plan: &atesor.BuildPlan{Phases: []atesor.Phase{
				{Name: "setup", Commands: []string{"apt-get update && apt-get install -y build-essential cmake"}},
				{Name: "build", Commands: []string{cmakeBuildLine}}}}, Locate: locate}
			fix, why := makeHeaderDir(ctx, Failure{Category: atesor.CategoryDependency, Message: out, Output: out, Phase: "build"}, env)
			if fix == nil {
				t.Fatalf("no fix: %s", why)
			}
			t.Logf("%s in %s: %s", c.name, time.Since(start).Round(time.Second), fix.Strategy)
			if want := "export CPATH=" + c.dir + " && " + cmakeBuildLine; fix.Plan.Phases[1].Commands[0] != want {
				t.Errorf("build line %q, want %q", fix.Plan.Phases[1].Commands[0], want)
			}
			if want := "apt-get update && apt-get install -y build-essential cmake " + c.pkg; fix.Plan.Phases[0].Commands[0] != want {
				t.Errorf("setup line %q, want %q", fix.Plan.Phases[0].Commands[0], want)
			}
		})
	}
}

const cmakeBuildLine = "cmake -S . -B build && cmake --build build"

// openE2ESandbox opens the real debian-riscv64 sandbox for a repair E2E test (binfmt
// registered first) and closes it when the test ends.
func openE2ESandbox(ctx context.Context, t *testing.T) (atesor.Platform, *sandbox.Rootfs) {
	t.Helper()
	p, err := knowledge.Profile("debian")
	if err != nil {
		t.Fatal(err)
	}
	if err := sandbox.SetupBinfmt(); err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.NewRootfs(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return p, sb
}
