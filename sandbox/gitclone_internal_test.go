package sandbox

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// TestCloneBindsOnlyTheRepository: the clone of a file:// source sees the repository's
// own directory, read-only, and nothing beside it (the parent directory, where sibling
// repositories live, was bound before); the submodule step sees no host path at all and
// runs with the local transport off.
func TestCloneBindsOnlyTheRepository(t *testing.T) {
	type call struct {
		line    string
		network bool
		binds   []string
	}
	var calls []call
	run := func(_ context.Context, line, _ string, network bool, binds []string) (atesor.CommandResult, error) {
		calls = append(calls, call{line, network, binds})
		switch {
		case strings.Contains(line, "--get-regexp"):
			return atesor.CommandResult{Stdout: "submodule.lib.url\nhttps://git.test/lib.git\x00"}, nil
		}
		return atesor.CommandResult{}, nil
	}
	if err := cloneGit(context.Background(), run, "file:///srv/git/public/", "/workspace/public"); err != nil {
		t.Fatal(err)
	}
	if len(calls) < 3 {
		t.Fatalf("calls = %+v", calls)
	}
	if d := cmp.Diff([]string{"/srv/git/public"}, calls[0].binds); d != "" {
		t.Errorf("the clone's binds (-want +got):\n%s", d)
	}
	if strings.Contains(calls[0].line, "recurse-submodules") {
		t.Errorf("the first clone fetches submodules itself: %s", calls[0].line)
	}
	last := calls[len(calls)-1]
	if len(last.binds) != 0 || !last.network || !strings.Contains(last.line, "protocol.allow=never") || strings.Contains(last.line, "protocol.file.allow=always") {
		t.Errorf("the submodule step = %+v", last)
	}
	for _, c := range calls {
		for _, b := range c.binds {
			if b != "/srv/git/public" {
				t.Errorf("%q binds %s", c.line, b)
			}
		}
	}
}

func TestSubmoduleURLs(t *testing.T) {
	out := "submodule.a.url\n../private\x00submodule.b c.url\nhttps://git.test/b.git\x00junk\x00submodule..url\nx\x00"
	want := []submoduleURL{{"a", "../private"}, {"b c", "https://git.test/b.git"}}
	if d := cmp.Diff(want, parseSubmoduleURLs(out), cmp.AllowUnexported(submoduleURL{})); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for u, network := range map[string]bool{
		"https://git.test/x.git": true, "http://git.test/x": true, "git://git.test/x": true, "ssh://git@git.test/x": true,
		"git@git.test:x/y.git": true, "git.test:x/y": true,
		"file:///srv/private": false, "/srv/private": false, "../private": false, "./x": false, "private": false,
		"ext::sh -c cat% /etc/passwd": false, "fd::3": false, "a/b:c": false, "https://": false, "-uhttps://x/y": false,
		"git+ssh://git.test/x": false, "[::1]:x": false, "C:\\x": true,
	} {
		if got := isNetworkGitURL(u); got != network {
			t.Errorf("isNetworkGitURL(%q) = %t, want %t", u, got, network)
		}
	}
}

// FuzzSubmoduleURLs: whatever a repository's .gitmodules says, parsing never panics, and
// a URL taken as a network URL is never a local path or a file URL.
func FuzzSubmoduleURLs(f *testing.F) {
	f.Add("submodule.a.url\n../private\x00submodule.b.url\nfile:///etc\x00")
	f.Add("submodule.x.url\next::sh -c id\x00")
	f.Fuzz(func(t *testing.T, out string) {
		for _, s := range parseSubmoduleURLs(out) {
			if s.name == "" {
				t.Fatalf("empty submodule name from %q", out)
			}
			if isNetworkGitURL(s.url) && (strings.HasPrefix(s.url, "/") || strings.HasPrefix(s.url, ".") || strings.HasPrefix(strings.ToLower(s.url), "file://") || remoteHelper(s.url)) {
				t.Fatalf("%q taken as a network URL", s.url)
			}
		}
	})
}

// remoteHelper reports whether git reads u as <helper>::<address>.
func remoteHelper(u string) bool {
	i := strings.Index(u, "::")
	return i >= 0 && !strings.Contains(u[:i], ":")
}
