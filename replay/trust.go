package replay

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/gotool"
	"github.com/eclipse-atesor/atesor-go/internal/escape"
	"github.com/eclipse-atesor/atesor-go/source"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// This file holds what a replay checks before it runs anything: a recipe folder may be
// someone else's, so neither its report nor its recipe may choose host files, and its
// commands pass the same rules as a model's.

// ErrHostSource is returned (wrapped) when a report names a source on this host (a
// directory, a local tarball, a file:// repository) or one that cannot be checked: a
// recipe folder cannot choose which host files enter the sandbox, so the user names the
// source.
var ErrHostSource = errors.New("the report names a source that a replay does not take from a recipe folder")

// reportedSourceOK says whether a report's source may be used without the user naming
// it: a tarball URL whose SHA-256 the report records, on a host that is not this
// machine's own or private network (the host downloads it), or a git URL other than
// file:// whose commit the report records (the sandbox clones it).
func reportedSourceOK(src, sha, commit string) error {
	how := "name the source yourself: atesor replay RECIPE.md --source PATH-OR-URL (in Go: replay.ReadInputFrom); its SHA-256 or commit is checked against the report's"
	shown := escape.Line(source.RedactURL(src))
	switch kind := source.KindOf(src); {
	case strings.HasPrefix(strings.TrimSpace(src), "file://"):
		return fmt.Errorf("%w: %s is a repository on this host; %s", ErrHostSource, shown, how)
	case kind == source.Dir || kind == source.Tarball:
		return fmt.Errorf("%w: %s is a path on this host; %s", ErrHostSource, shown, how)
	case kind == source.URL:
		if sha == "" {
			return fmt.Errorf("%w: the report records no SHA-256 for %s to check the download against; %s", ErrHostSource, shown, how)
		}
		if u, err := url.Parse(src); err != nil || localHost(u.Hostname()) {
			return fmt.Errorf("%w: %s is on this machine or its private network, which the host would download from; %s", ErrHostSource, shown, how)
		}
	case kind == source.Git:
		if commit == "" {
			return fmt.Errorf("%w: the report records no commit for %s to check the clone against; %s", ErrHostSource, shown, how)
		}
	}
	return nil
}

// localHost reports whether host names this machine or a private, link-local or
// unspecified address (an address only reachable from where the host stands).
func localHost(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "" || h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && (ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsUnspecified())
}

// goVersion is a Go release name as the module proxy serves toolchains.
var goVersion = regexp.MustCompile(`^go1\.[0-9]{1,3}(\.[0-9]{1,3})?((rc|beta)[0-9]{1,3})?$`)

// checkInput refuses a replay input whose names would leave their place: a
// package name that is not a safe file name (it becomes /workspace/<name> and the
// replay's output folder), and a recorded Go toolchain with another version syntax or
// architecture. The GOROOT of a fetched release is recomputed, not taken from the input.
func checkInput(in *Input) error {
	if in.Package == "" || source.SanitizeName(in.Package) != in.Package {
		return fmt.Errorf("the package name %q is not a safe file name (letters, digits and . _ + -); the recipe was not written by atesor port", escape.Line(in.Package))
	}
	if t := in.GoToolchain; t != nil {
		if !goVersion.MatchString(t.Version) || (t.Arch != "riscv64" && t.Arch != "amd64") {
			return fmt.Errorf("the recorded Go toolchain %q for %q is not a Go release for riscv64 or amd64", escape.Line(t.Version), escape.Line(t.Arch))
		}
		if t.GOROOT != "" {
			c := *t
			c.GOROOT = gotool.Root(t.Version)
			in.GoToolchain = &c
		}
	}
	return nil
}

// refused checks a recipe's commands and patches with the rules a model's plan and
// fixes pass before they run: the command block as one plan (every line, the flow from
// one line to the next, the deny rules on every simple command), the patches as the
// patch actions of one fix (paths inside the repository). It returns why they are
// refused, or "".
func refused(cmds, patches []string, repoDir string) string {
	if len(cmds) > 0 {
		plan := atesor.BuildPlan{Phases: []atesor.Phase{{Name: "replay", Commands: cmds}}}
		if err := validate.BuildPlan(&plan); err != nil {
			return "refused by the command rules, so nothing ran: " + escape.Line(err.Error())
		}
	}
	if len(patches) == 0 {
		return ""
	}
	st := atesor.Strategy{ID: "1", Description: "the recipe's patches"}
	for i, d := range patches {
		st.Actions = append(st.Actions, atesor.Action{Type: atesor.ActionPatch, File: fmt.Sprintf("patch-%d", i+1), Diff: d})
	}
	p := atesor.FixProposal{Strategies: []atesor.Strategy{st}, RecommendedStrategyID: "1"}
	if err := validate.FixProposal(&p, repoDir); err != nil {
		return "a patch is refused by the fix rules, so nothing ran: " + escape.Line(err.Error())
	}
	return ""
}
