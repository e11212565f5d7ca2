package graph

import (
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/recipe"
)

// The summarizer's prompt, the recipe check and the fallback recipe use the same six
// section names.
func TestRecipeSectionsAreOneList(t *testing.T) {
	prompt, err := render("summarizer", map[string]any{"Repo": "x", "Platform": "Debian", "Verdict": "VERIFIED", "Facts": "f",
		"Sections": atesor.RecipeSections(), "Summary": atesor.RecipeSummary, "Verification": atesor.RecipeVerification})
	if err != nil {
		t.Fatal(err)
	}
	want := "## Executive Summary\n## Prerequisites\n## Build Instructions\n## Architecture Notes\n## Verification\n## Known Issues & Recommendations\n\n" +
		"State the verdict (VERIFIED) in the Executive Summary and the Verification section."
	if !strings.Contains(prompt, want) {
		t.Errorf("the summarizer prompt lacks the sections:\n%s", prompt)
	}
	s := &atesor.State{}
	s.RepoName = "x"
	if fb := fallbackRecipe(s); !recipe.HasSections(fb) {
		t.Errorf("the fallback recipe lacks a section:\n%s", fb)
	}
	for _, sec := range atesor.RecipeSections() {
		if !strings.Contains(prompt, "## "+sec+"\n") {
			t.Errorf("the prompt does not ask for %q", sec)
		}
	}
}
