package graph

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/pkgtree"
	"github.com/eclipse-atesor/atesor-go/llm"
	"github.com/eclipse-atesor/atesor-go/recipe"
)

// writeRecipe asks the summarizer for the recipe and keeps it when it has the six
// sections in order; otherwise, or offline, the fallback recipe is used.
func (r *run) writeRecipe(ctx context.Context, s *atesor.State) string {
	fallback := fallbackRecipe(s)
	if r.provider == nil {
		return fallback
	}
	verdict := recipe.Verdict(s)
	prompt, err := render("summarizer", map[string]any{
		"Repo": s.RepoName, "Platform": s.Platform.DisplayName, "Verdict": verdict, "Facts": fallback,
		"Sections": atesor.RecipeSections(), "Summary": atesor.RecipeSummary, "Verification": atesor.RecipeVerification,
	})
	if err != nil {
		r.log.Error("summarizer prompt", "err", err)
		return fallback
	}
	text, ok := askText(ctx, r, s, atesor.RoleSummarizer, "summarizer", prompt, 0)
	if !ok || !recipe.HasSections(text) {
		r.emit(atesor.Event{Kind: atesor.EventFallback, Node: NodeFinish, Role: string(atesor.RoleSummarizer), Label: "summarizer", Line: "the summarizer's recipe lacks a section: using the fallback recipe"})
		return fallback
	}
	if !s.Verified && !strings.Contains(text, "NOT VERIFIED") {
		text = "**NOT VERIFIED**\n\n" + text
	}
	return text
}

// curatorTimeout is the wall timeout of the curator's model call.
const curatorTimeout = 60 * time.Second

// curate refines the rule-based artifact roles with the curator model: the rules stay
// the pre-filter (noise never reaches the model) and the fallback. A curated port is
// verified on the rules' primaries, so the curator can only demote, never promote an
// artifact that did not verify.
func (r *run) curate(ctx context.Context, s *atesor.State) {
	if r.provider == nil || len(s.Artifacts) < 2 {
		return
	}
	var list strings.Builder
	for i, a := range s.Artifacts {
		fmt.Fprintf(&list, "%d: %s (%s, %s)\n", i, pkgtree.Rel(s.RepoDir, a.Path), a.Kind, a.Role)
	}
	purpose := ""
	if s.Analysis != nil {
		purpose = s.Analysis.Purpose
	}
	prompt, err := render("curator", map[string]any{"Repo": s.RepoName, "Purpose": purpose, "List": list.String()})
	if err != nil {
		return
	}
	ans := askJSONTimeout(ctx, r, s, atesor.RoleSummarizer, "curator", prompt, curatorTimeout, func(a *atesor.CuratorAnswer) error {
		return checkCuratorIDs(a, len(s.Artifacts))
	})
	if ans == nil {
		if r.provider != nil {
			r.emit(atesor.Event{Kind: atesor.EventFallback, Node: NodeFinish, Role: string(atesor.RoleSummarizer), Label: "curator", Line: "the curator gave no valid answer: the curator rules decide the artifact roles"})
		}
		return
	}
	primary := map[int]bool{}
	for _, id := range ans.Primary {
		primary[id] = true
	}
	kept := 0
	for i := range s.Artifacts {
		if s.Artifacts[i].Role == atesor.ArtifactPrimary && primary[i] {
			kept++
		}
	}
	if kept == 0 {
		return // the curator would leave no verified primary artifact: keep the rules
	}
	for i := range s.Artifacts {
		if s.Artifacts[i].Role == atesor.ArtifactPrimary && !primary[i] {
			s.Artifacts[i].Role = atesor.ArtifactSecondary
		}
	}
}

// treeListing lists a host tree's files (directories first level, then files), for
// prompts.
func treeListing(root string) string {
	if root == "" {
		return ""
	}
	var paths []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		relp, _ := filepath.Rel(root, p)
		if relp == "." {
			return nil
		}
		if d.IsDir() && (d.Name() == ".git" || strings.Count(relp, string(os.PathSeparator)) >= 2) {
			return filepath.SkipDir
		}
		if d.IsDir() {
			relp += "/"
		}
		paths = append(paths, relp)
		if len(paths) > 400 {
			return filepath.SkipAll
		}
		return nil
	})
	sort.Strings(paths)
	return strings.Join(paths, "\n")
}

var _ = llm.CostForUsage

// checkCuratorIDs rejects a curator answer that names an artifact id it was not shown.
func checkCuratorIDs(a *atesor.CuratorAnswer, n int) error {
	for _, list := range [][]int{a.Primary, a.Secondary, a.Drop} {
		for _, id := range list {
			if id < 0 || id >= n {
				return fmt.Errorf("artifact id %d does not exist: use the ids 0 to %d of the list", id, n-1)
			}
		}
	}
	return nil
}
