package recipe

import (
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go"
)

// TestFallback checks that the code-written recipe has the six sections in order, carries
// each concern's evidence in place, and escapes what the build named.
func TestFallback(t *testing.T) {
	s := &atesor.State{}
	s.RepoName, s.RepoDir = "demo", "/workspace/demo"
	s.Verified, s.Status = true, atesor.StatusVerified
	s.Plan = &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "build *now*", Commands: []string{"make"}}}}
	s.Artifacts = []atesor.Artifact{{Path: "/workspace/demo/lib`x`.so", Role: atesor.ArtifactPrimary, Kind: "shared_library", Machine: "EM_RISCV"}}
	md := Fallback(s, Evidence{Prerequisites: "- go 1.24\n", Install: "install-text\n", Tests: "tests-text\n", Removals: "removals-text\n"})
	if !HasSections(md) {
		t.Fatalf("the fallback lacks a section:\n%s", md)
	}
	order := []string{"## " + atesor.RecipePrerequisites, "- go 1.24", "## " + atesor.RecipeBuild, "## " + atesor.RecipeVerification,
		"install-text", "tests-text", "removals-text", "## " + atesor.RecipeKnownIssues}
	at := 0
	for _, want := range order {
		i := strings.Index(md[at:], want)
		if i < 0 {
			t.Fatalf("%q missing or out of order in:\n%s", want, md)
		}
		at += i
	}
	if strings.Contains(md, "build *now*") || strings.Contains(md, "lib`x`.so`") {
		t.Errorf("names the build chose are not escaped:\n%s", md)
	}
	s.Verified, s.Status, s.FailureClass = false, atesor.StatusNotVerified, atesor.FailureVerify
	if md := Fallback(s, Evidence{}); !strings.Contains(md, "NOT VERIFIED") || !HasSections(md) {
		t.Errorf("an unverified fallback:\n%s", md)
	}
}

func TestHasSectionsNeedsOrder(t *testing.T) {
	var b strings.Builder
	secs := atesor.RecipeSections()
	for i := len(secs) - 1; i >= 0; i-- {
		b.WriteString("## " + secs[i] + "\n\ntext\n\n")
	}
	if HasSections(b.String()) {
		t.Error("sections in reverse order accepted")
	}
}
