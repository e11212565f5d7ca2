package knowledge

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// DebianMirrorEnv overrides the Debian archive mirror [DebianMirror] finds.
const DebianMirrorEnv = "ATESOR_DEBIAN_MIRROR"

// ErrNoDebianMirror is returned when neither the environment nor the host's apt
// configuration names a Debian archive.
var ErrNoDebianMirror = errors.New("no Debian archive mirror: set " + DebianMirrorEnv + " to the archive's base URL (the directory holding dists/ and pool/)")

// DebianMirror returns the base URL of the Debian archive to download from, without a
// trailing slash: $ATESOR_DEBIAN_MIRROR when set, else the first main archive (not a
// security or updates-only archive) of the host's apt configuration, read from
// /etc/apt/sources.list.d/*.sources (deb822) and /etc/apt/sources.list.
func DebianMirror() (string, error) {
	if m := strings.TrimSpace(os.Getenv(DebianMirrorEnv)); m != "" {
		return strings.TrimRight(m, "/"), nil
	}
	return debianMirrorFrom("/etc/apt")
}

// debianMirrorFrom reads the apt configuration under dir (normally /etc/apt).
func debianMirrorFrom(dir string) (string, error) {
	var uris []string
	files, _ := filepath.Glob(filepath.Join(dir, "sources.list.d", "*.sources"))
	slices.Sort(files)
	for _, f := range files {
		uris = append(uris, deb822URIs(f)...)
	}
	lists, _ := filepath.Glob(filepath.Join(dir, "sources.list.d", "*.list"))
	slices.Sort(lists)
	for _, f := range append([]string{filepath.Join(dir, "sources.list")}, lists...) {
		uris = append(uris, oneLineURIs(f)...)
	}
	for _, u := range uris {
		if (strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://")) && !strings.Contains(u, "security") {
			return strings.TrimRight(u, "/"), nil
		}
	}
	return "", fmt.Errorf("read %s: %w", dir, ErrNoDebianMirror)
}

// deb822URIs returns the URIs of the enabled deb stanzas of a .sources file.
func deb822URIs(file string) []string {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var out []string
	for _, stanza := range strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n\n") {
		fields := map[string]string{}
		for _, line := range strings.Split(stanza, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "#") {
				continue
			}
			k, v, ok := strings.Cut(line, ":")
			if ok && !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "\t") {
				fields[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
			}
		}
		if strings.EqualFold(fields["enabled"], "no") || !slices.Contains(strings.Fields(fields["types"]), "deb") {
			continue
		}
		if onlySecurity(strings.Fields(fields["suites"])) {
			continue
		}
		out = append(out, strings.Fields(fields["uris"])...)
	}
	return out
}

func onlySecurity(suites []string) bool {
	if len(suites) == 0 {
		return false
	}
	for _, s := range suites {
		if !strings.HasSuffix(s, "-security") {
			return false
		}
	}
	return true
}

// oneLineURIs returns the URIs of the deb lines of a sources.list file.
func oneLineURIs(file string) []string {
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
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
		if len(rest) >= 2 && !strings.HasSuffix(rest[1], "-security") {
			out = append(out, rest[0])
		}
	}
	return out
}
