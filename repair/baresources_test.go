package repair

import (
	"context"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
)

// TestBareSourcesProgram runs the rule, through Propose, on morsegen 0.2.1's real
// discovery-plan failure in the riscv64 sandbox (its tarball is one morsegen.c, which
// Debian's rules compile with gcc -o morsegen *.c), and on trees made from it.
func TestBareSourcesProgram(t *testing.T) {
	morsegen := readLog(t, "baresources/morsegen-0.2.1.c")
	const helper = "#include <stdio.h>\nint helper(void) { return 1; }\n"
	const cxxMain = "#include <iostream>\nint\nmain(int argc, char **argv)\n{\n  std::cout << argc;\n}\n"
	tests := []struct {
		name      string
		tree      memTree
		wantBuild string // "": no fix
		wantWhy   string
	}{
		{name: "morsegen: one file", tree: memTree{"morsegen.c": morsegen, "README": "x"},
			wantBuild: "cc -O2 -g -o morsegen morsegen.c"},
		{name: "a program and a helper file", tree: memTree{"morsegen.c": morsegen, "util.c": helper, "util.h": "int helper(void);\n"},
			wantBuild: "cc -O2 -g -o morsegen morsegen.c util.c"},
		{name: "two programs share a helper", tree: memTree{"enc.c": morsegen, "dec.c": morsegen, "util.c": helper},
			wantBuild: "cc -O2 -g -o dec dec.c util.c && cc -O2 -g -o enc enc.c util.c"},
		{name: "sources in src/", tree: memTree{"src/morsegen.c": morsegen, "COPYING": "x"},
			wantBuild: "cc -O2 -g -o src/morsegen src/morsegen.c"},
		{name: "C++, K&R-style main on its own line", tree: memTree{"tool.cpp": cxxMain},
			wantBuild: "c++ -O2 -g -o tool tool.cpp"},
		{name: "a Makefile somewhere", tree: memTree{"morsegen.c": morsegen, "extra/Makefile": "all:\n"},
			wantWhy: "the tree has a build file (extra/Makefile)"},
		{name: "a debian/ makefile does not count", tree: memTree{"morsegen.c": morsegen, "debian/pod2man.mk": "x"},
			wantBuild: "cc -O2 -g -o morsegen morsegen.c"},
		{name: "no main", tree: memTree{"util.c": helper},
			wantWhy: "no source defines main"},
		{name: "a prototype of main is not a definition", tree: memTree{"util.c": helper + "int main(int, char **);\n"},
			wantWhy: "no source defines main"},
		{name: "C and C++ side by side", tree: memTree{"a.c": morsegen, "b.cpp": cxxMain},
			wantWhy: "C and C++ sources side by side"},
		{name: "several directories", tree: memTree{"a/x.c": morsegen, "b/y.c": morsegen},
			wantWhy: "several directories (a, b)"},
		{name: "no sources", tree: memTree{"README": "x"},
			wantWhy: "no C or C++ sources"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := knowledge.DiscoveryPlan(debian(t))
			fix, notes := proposeOnBuild(t, "bare-sources-morsegen.log", &plan, tt.tree)
			if tt.wantBuild == "" {
				wantNoFix(t, "bare-sources-program", fix, notes, tt.wantWhy)
				return
			}
			wantPlanFix(t, "bare-sources-program", fix, notes, "/workspace/morsegen", plan.Phases[0].Commands[0], tt.wantBuild)
		})
	}
}

// FuzzMainDefinition: the main finder must not panic on any source text.
func FuzzMainDefinition(f *testing.F) {
	f.Add("int main(int argc, char **argv) {\n")
	f.Add("int main(void);\n")
	f.Add("int\nmain(argc, argv)\nchar **argv;\n{\n")
	f.Fuzz(func(t *testing.T, src string) {
		tree := memTree{"a.c": src}
		plan := atesor.BuildPlan{Phases: []atesor.Phase{{Name: "build", Commands: []string{"true"}}}}
		fix, why := makeBareSources(context.Background(), Failure{Phase: "build"}, Env{Platform: atesor.Platform{InstallCommand: "apt-get install -y"}, Plan: &plan, Files: tree.files(), ReadFile: tree.read})
		if (fix == nil) == (why == "") {
			t.Fatalf("fix %v, reason %q", fix, why)
		}
	})
}
