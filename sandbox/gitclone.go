package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"strings"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/redact"
	"github.com/eclipse-atesor/atesor-go/internal/shellwords"
)

// This file clones a git source with its submodules so that the clone reaches only what
// a clone from the network would reach. A local repository (file://) is read from its
// own directory alone: nothing beside it on the host (a sibling repository a submodule
// URL such as ../private points to, an alternates directory) is visible, and every
// submodule comes from the network.

// ErrLocalSubmodule is returned (wrapped) when a submodule of a git source would be
// read from this host: a relative URL of a local repository that has no network remote
// to resolve against, or a submodule URL that is a host path or a file:// URL.
var ErrLocalSubmodule = errors.New("a submodule would be read from this host")

// submoduleTransports are the only transports a submodule is fetched with: those a
// clone from the network uses. The local transport (file:// and plain paths) and the
// helpers (ext::, fd::) are off, also for nested submodules, which get the setting
// through git's environment.
var submoduleTransports = []string{"-c", "protocol.allow=never", "-c", "protocol.https.allow=always", "-c", "protocol.http.allow=always",
	"-c", "protocol.git.allow=always", "-c", "protocol.ssh.allow=always"}

// gitExec runs one command of a clone: line in dir, with network or not, with the host
// paths binds visible read-only at the same paths (backends that share the host's file
// system ignore binds).
type gitExec func(ctx context.Context, line, dir string, network bool, binds []string) (atesor.CommandResult, error)

// cloneGit clones src into dest (a path as the commands see it), depth 1, and its
// submodules under the rules above. A local repository is bound read-only by itself
// for the clone; its relative submodule URLs are resolved against its own remote
// (remote.origin.url) when that is a network URL, since that is where a clone from the
// network would find them, and refused otherwise.
func cloneGit(ctx context.Context, run gitExec, src, dest string) error {
	var binds []string
	local := ""
	if u, err := url.Parse(src); err == nil && u.Scheme == "file" {
		local = filepath.Clean(u.Path)
		binds = []string{local}
	}
	res, err := run(ctx, gitCloneLine(src, dest), "/", true, binds)
	if err := cloneError(src, res, err); err != nil {
		return err
	}
	res, err = run(ctx, "git config --file "+shellwords.Quote(path.Join(dest, ".gitmodules"))+" --null --get-regexp '^submodule\\..*\\.url$'", "/", false, nil)
	if err != nil {
		return fmt.Errorf("sandbox: read the submodules of %s: %w", redact.URLs(src), err)
	}
	subs := parseSubmoduleURLs(res.Stdout)
	if len(subs) == 0 {
		return nil
	}
	base := ""
	if local != "" {
		base = localRemote(ctx, run, local, binds)
	}
	for _, s := range subs {
		switch {
		case isRelativeGitURL(s.url) && local != "" && base == "":
			return fmt.Errorf("sandbox: %w: submodule %q of %s has the relative URL %q, which resolves to a path beside the repository on this host; a clone from the network resolves it against the repository's remote, and this repository has no network remote (remote.origin.url): give the repository's network URL as the source, or set its remote.origin.url", ErrLocalSubmodule, s.name, redact.URLs(src), s.url)
		case isRelativeGitURL(s.url):
		case !isNetworkGitURL(s.url):
			return fmt.Errorf("sandbox: %w: submodule %q of %s has the URL %q, a path on this host or a transport a clone from the network does not use; only https, http, git and ssh submodules are fetched", ErrLocalSubmodule, s.name, redact.URLs(src), redact.URLs(s.url))
		}
	}
	if base != "" {
		// Relative submodule URLs resolve against the superproject's origin: make it the
		// network remote the local repository names, never the host path.
		res, err := run(ctx, "git -C "+shellwords.Quote(dest)+" remote set-url origin "+shellwords.Quote(base), "/", false, nil)
		if err := cloneError(src, res, err); err != nil {
			return err
		}
	}
	line := "git " + strings.Join(submoduleTransports, " ") + " -C " + shellwords.Quote(dest) + " submodule update --init --recursive --depth 1"
	res, err = run(ctx, line, "/", true, nil)
	return cloneError(src, res, err)
}

// localRemote returns the network URL a local repository's origin names ("" when it has
// none, or when it names another local path).
func localRemote(ctx context.Context, run gitExec, repo string, binds []string) string {
	for _, cfg := range []string{path.Join(repo, ".git", "config"), path.Join(repo, "config")} {
		res, err := run(ctx, "git config --file "+shellwords.Quote(cfg)+" --get remote.origin.url", "/", false, binds)
		if err != nil || !res.OK() {
			continue
		}
		u := strings.TrimSpace(res.Stdout)
		if isNetworkGitURL(u) {
			return u
		}
		return ""
	}
	return ""
}

// submoduleURL is one submodule's name and URL from .gitmodules.
type submoduleURL struct{ name, url string }

// parseSubmoduleURLs reads the output of git config --null --get-regexp of the
// submodule URLs: entries "submodule.<name>.url\n<value>" separated by NUL bytes.
func parseSubmoduleURLs(out string) []submoduleURL {
	var subs []submoduleURL
	for _, e := range strings.Split(out, "\x00") {
		key, val, ok := strings.Cut(e, "\n")
		if !ok {
			continue
		}
		name, found := strings.CutPrefix(key, "submodule.")
		name, suffix := strings.CutSuffix(name, ".url")
		if !found || !suffix || name == "" {
			continue
		}
		subs = append(subs, submoduleURL{name: name, url: val})
	}
	return subs
}

// isRelativeGitURL reports whether a submodule URL is relative to the superproject's
// remote (./x or ../x).
func isRelativeGitURL(u string) bool {
	return strings.HasPrefix(u, "./") || strings.HasPrefix(u, "../")
}

// isNetworkGitURL reports whether u is fetched over the network: an https, http, git or
// ssh URL with a host, or the scp-like user@host:path form.
func isNetworkGitURL(u string) bool {
	if strings.ContainsAny(u, "\x00\n\r") || strings.HasPrefix(u, "-") {
		return false
	}
	if i := strings.Index(u, "://"); i >= 0 {
		p, err := url.Parse(u)
		if err != nil || p.Host == "" || strings.Contains(u[:i], "+") {
			return false
		}
		switch p.Scheme {
		case "https", "http", "git", "ssh":
			return true
		}
		return false
	}
	// scp-like syntax: host:path, where the part before the first colon holds no slash
	// (git reads "a/b:c" as a local path) and is not a remote helper's "name::".
	hostPart, rest, ok := strings.Cut(u, ":")
	if !ok || hostPart == "" || strings.ContainsAny(hostPart, "/[]") || strings.HasPrefix(rest, ":") {
		return false
	}
	if at := strings.LastIndex(hostPart, "@"); at >= 0 {
		hostPart = hostPart[at+1:]
	}
	// A host name starts with a letter or digit: ".:x" or "-oProxyCommand:x" is no host.
	return hostPart != "" && !strings.ContainsAny(hostPart[:1], ".-")
}

// gitCloneLine clones url to dest with depth 1, without its submodules ([cloneGit]
// fetches them). The local transport is allowed for this one clone of a file:// source;
// the submodule step turns it off.
func gitCloneLine(url, dest string) string {
	c := "git"
	if strings.HasPrefix(url, "file://") {
		c += " -c protocol.file.allow=always"
	}
	return c + " clone --depth 1 " + shellwords.Quote(url) + " " + shellwords.Quote(dest)
}

// cloneTimeout bounds each command of a clone.
const cloneTimeout = 30 * time.Minute
