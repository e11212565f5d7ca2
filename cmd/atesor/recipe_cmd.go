package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/escape"

	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/memory"
)

var recipeUsage = usage{
	synopsis:    "atesor recipe show [--platform PLATFORM] [--json] PACKAGE",
	description: "Show porting recipes from the recipe cache (<home>/data/recipe_cache.json).",
	subcommands: [][2]string{{"show", "print the cached recipe of a package"}},
}

func runRecipe(ctx context.Context, a *app, args []string) int {
	return subcommand(ctx, a, "recipe", recipeUsage, args, map[string]func(context.Context, *app, []string) int{
		"show": recipeShow,
	})
}

func recipeShow(ctx context.Context, a *app, args []string) int {
	fs := flagSet("recipe show")
	platform := fs.String("platform", envOr("ATESOR_PLATFORM", "debian"), "alpine, debian or ubuntu ($ATESOR_PLATFORM)")
	asJSON := fs.Bool("json", false, "print the whole cache entry as JSON")
	u := usage{synopsis: recipeUsage.synopsis,
		description: "Print the cached recipe of PACKAGE for the platform's sandbox: the status line,\n" +
			"then the recipe as Markdown. Exit status 1 when the cache has no entry."}
	pos, code, done := parseOrExit(a, fs, u, args)
	if done {
		return code
	}
	if len(pos) != 1 {
		return usageError(a, "recipe show", "want exactly one PACKAGE")
	}
	p, err := knowledge.Profile(*platform)
	if err != nil {
		return usageError(a, "recipe show", "%v", err)
	}
	r, cachePath, err := cachedRecipe(ctx, p, pos[0])
	if err != nil {
		fmt.Fprintf(a.stderr, "atesor recipe show: %v\n", err)
		return exitFailed
	}
	if r == nil {
		fmt.Fprintf(a.stderr, "atesor recipe show: no cached recipe for %s in %s (%s); port it with: atesor port SOURCE --platform %s\n",
			pos[0], p.SandboxKey(), cachePath, p.Name)
		return exitFailed
	}
	if *asJSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			fmt.Fprintf(a.stderr, "atesor recipe show: %v\n", err)
			return exitFailed
		}
		return exitOK
	}
	verdict := "VERIFIED"
	if !r.Verified {
		verdict = "NOT VERIFIED"
	}
	fmt.Fprintf(a.stdout, "# %s (%s): %s, %s, built %s from %s\n\n", escape.Line(r.Package), escape.Line(r.Sandbox), verdict,
		escape.Line(string(r.BuildSystem)), r.LastBuilt.Format("2006-01-02 15:04"), escape.Line(r.Source))
	fmt.Fprintln(a.stdout, escape.Text(strings.TrimRight(r.Recipe, "\n")))
	return exitOK
}

// cachedRecipe is the recipe-cache entry of the package for the platform's sandbox (nil
// when there is none) and the cache file's path: `atesor recipe show` and the MCP
// server's recipe tool read it through here.
func cachedRecipe(ctx context.Context, p atesor.Platform, pkg string) (*atesor.CachedRecipe, string, error) {
	home, err := memory.Home()
	if err != nil {
		return nil, "", err
	}
	store, err := memory.Open(memory.ExamplesDir(home), memory.WithSandbox(p.SandboxKey()))
	if err != nil {
		return nil, "", err
	}
	r, err := store.Recipe(ctx, pkg, p.SandboxKey())
	return r, store.RecipeCachePath(), err
}

// envOr returns the environment variable (after .env loading), or def when it is
// unset or empty.
func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}
