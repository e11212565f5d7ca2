package debarchive

// Which archive: the mirror (the host's apt configuration unless the caller names one)
// and the suite. Sandbox provisioning, the Debian source resolver, the Contents index of
// the repairs and the distribution comparison all find them here, so they read one
// archive the same way.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/eclipse-atesor/atesor-go/internal/beneath"
)

// DefaultSuite is the Debian suite Atesor's Debian profile is built on: the root
// filesystem's, and the archive's when nothing else names one.
const DefaultSuite = "trixie"

// MirrorVariable is the environment variable the command line takes a mirror override
// from (the library reads no environment: the override is passed to [FindMirror]).
const MirrorVariable = "ATESOR_DEBIAN_MIRROR"

// ErrNoMirror is returned when neither the caller nor the host's apt configuration names
// a Debian archive.
var ErrNoMirror = errors.New("no Debian archive mirror: set " + MirrorVariable + " to the archive's base URL (the directory holding dists/ and pool/)")

// FindMirror returns the base URL of the Debian archive to download from, without a
// trailing slash: override when not blank, else the first main archive of the host's
// apt configuration, read from the deb822 files /etc/apt/sources.list.d/*.sources and
// then the one-line files /etc/apt/sources.list and /etc/apt/sources.list.d/*.list.
// Only enabled "deb" entries over http or https count; security, ports and debug
// archives are skipped. It returns an error wrapping [ErrNoMirror] when nothing
// qualifies.
func FindMirror(override string) (string, error) {
	if m := strings.TrimSpace(override); m != "" {
		return strings.TrimRight(m, "/"), nil
	}
	return hostMirror("/etc/apt")
}

// MirrorIn returns the first main archive of the apt configuration under dir (an
// etc/apt directory, a sandbox's for example), read as [FindMirror] reads the host's.
// A sandbox's configuration is the build's to change,
// so its files are read beneath dir (links resolved inside it), regular files only, each
// at most maxAptFile bytes: a FIFO or a link to a device there cannot stall the host.
func MirrorIn(dir string) (string, error) {
	d, err := beneath.OpenDir(dir)
	if err != nil {
		return "", fmt.Errorf("read %s: %w: %w", dir, err, ErrNoMirror)
	}
	defer d.Close()
	ctx := context.Background()
	bound := beneath.Bound{Kind: "apt sources file", Max: maxAptFile}
	var sources, lists []string
	_ = d.WalkDir(ctx, "sources.list.d", func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if de.IsDir() {
			if p != "sources.list.d" {
				return fs.SkipDir
			}
			return nil
		}
		switch path.Ext(p) {
		case ".sources":
			sources = append(sources, p)
		case ".list":
			lists = append(lists, p)
		}
		return nil
	})
	return mirrorFrom(dir, sources, append([]string{"sources.list"}, lists...), func(name string) string {
		data, err := d.ReadFile(ctx, name, beneath.FollowInside, bound)
		if err != nil {
			return ""
		}
		return string(data)
	})
}

// maxAptFile bounds one apt sources file read from a sandbox.
const maxAptFile = 1 << 20

// hostMirror reads the host's own apt configuration under dir.
func hostMirror(dir string) (string, error) {
	sources, _ := filepath.Glob(filepath.Join(dir, "sources.list.d", "*.sources"))
	lists, _ := filepath.Glob(filepath.Join(dir, "sources.list.d", "*.list"))
	return mirrorFrom(dir, sources, append([]string{filepath.Join(dir, "sources.list")}, lists...), func(name string) string {
		data, _ := os.ReadFile(name)
		return string(data)
	})
}

// mirrorFrom returns the first usable archive of the deb822 files sources, then of the
// one-line files lists (each sorted after the first), read with read.
func mirrorFrom(dir string, sources, lists []string, read func(string) string) (string, error) {
	slices.Sort(sources)
	if len(lists) > 1 {
		slices.Sort(lists[1:])
	}
	var uris []string
	for _, f := range sources {
		uris = append(uris, deb822URIs(read(f))...)
	}
	for _, f := range lists {
		uris = append(uris, oneLineURIs(read(f))...)
	}
	for _, u := range uris {
		if usableMirror(u) {
			return strings.TrimRight(u, "/"), nil
		}
	}
	return "", fmt.Errorf("read %s: %w", dir, ErrNoMirror)
}

// usableMirror reports whether u is an http(s) URL of a main Debian archive, not a
// security, ports or debug archive.
func usableMirror(u string) bool {
	u = strings.TrimRight(u, "/")
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return false
	}
	return !strings.Contains(u, "security") && !strings.HasSuffix(u, "-ports") && !strings.HasSuffix(u, "-debug")
}

// deb822URIs returns the URIs of the enabled deb stanzas of a deb822 .sources file.
// Stanzas whose suites are all -security or -debug suites are skipped.
func deb822URIs(data string) []string {
	var out []string
	fields := map[string]string{}
	flush := func() {
		if !strings.EqualFold(fields["enabled"], "no") && slices.Contains(strings.Fields(fields["types"]), "deb") &&
			!onlySuites(strings.Fields(fields["suites"]), "-security", "-debug") {
			out = append(out, strings.Fields(fields["uris"])...)
		}
		clear(fields)
	}
	for _, line := range strings.Split(data, "\n") {
		line = strings.TrimRight(line, "\r")
		switch {
		case strings.TrimSpace(line) == "":
			flush()
		case strings.HasPrefix(strings.TrimSpace(line), "#"), strings.HasPrefix(line, " "), strings.HasPrefix(line, "\t"):
			// A comment, or a continuation line of a multi-line field.
		default:
			if k, v, ok := strings.Cut(line, ":"); ok {
				fields[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
			}
		}
	}
	flush()
	return out
}

// onlySuites reports whether every suite ends with one of suffixes (false for none).
func onlySuites(suites []string, suffixes ...string) bool {
	if len(suites) == 0 {
		return false
	}
	for _, s := range suites {
		if !slices.ContainsFunc(suffixes, func(x string) bool { return strings.HasSuffix(s, x) }) {
			return false
		}
	}
	return true
}

// oneLineURIs returns the URIs of the deb lines of a one-line sources.list file, skipping
// lines of a -security or -debug suite.
func oneLineURIs(data string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(data))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 || fields[0] != "deb" {
			continue
		}
		rest := fields[1:]
		if strings.HasPrefix(rest[0], "[") {
			for len(rest) > 0 && !strings.HasSuffix(rest[0], "]") {
				rest = rest[1:]
			}
			if len(rest) > 0 {
				rest = rest[1:]
			}
		}
		if len(rest) >= 2 && !onlySuites(rest[1:2], "-security", "-debug") {
			out = append(out, rest[0])
		}
	}
	return out
}
