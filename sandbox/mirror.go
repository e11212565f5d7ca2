package sandbox

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// DebianMirror returns the Debian archive URL to use: $ATESOR_DEBIAN_MIRROR when set,
// else the first Debian archive URL of the host's apt configuration (deb822 files in
// /etc/apt/sources.list.d/*.sources, then one-line entries in /etc/apt/sources.list and
// /etc/apt/sources.list.d/*.list), skipping security and ports archives. It returns ""
// when nothing is configured (mmdebstrap then uses its own default).
func DebianMirror() string {
	if m := os.Getenv("ATESOR_DEBIAN_MIRROR"); m != "" {
		return strings.TrimRight(m, "/")
	}
	return debianMirrorFrom("/etc/apt")
}

func debianMirrorFrom(aptDir string) string {
	files, _ := filepath.Glob(filepath.Join(aptDir, "sources.list.d", "*.sources"))
	for _, f := range files {
		if m := mirrorFromDeb822(f); m != "" {
			return m
		}
	}
	lists, _ := filepath.Glob(filepath.Join(aptDir, "sources.list.d", "*.list"))
	lists = append([]string{filepath.Join(aptDir, "sources.list")}, lists...)
	for _, f := range lists {
		if m := mirrorFromOneLine(f); m != "" {
			return m
		}
	}
	return ""
}

func usableMirror(u string) bool {
	u = strings.TrimRight(u, "/")
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return false
	}
	return !strings.HasSuffix(u, "-security") && !strings.Contains(u, "security.") &&
		!strings.HasSuffix(u, "-ports") && !strings.HasSuffix(u, "-debug")
}

func mirrorFromDeb822(file string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	var uris []string
	enabled, isDeb := true, false
	flush := func() string {
		defer func() { uris, enabled, isDeb = nil, true, false }()
		if !enabled || !isDeb {
			return ""
		}
		for _, u := range uris {
			if usableMirror(u) {
				return strings.TrimRight(u, "/")
			}
		}
		return ""
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			if m := flush(); m != "" {
				return m
			}
			continue
		}
		if strings.HasPrefix(line, "#") {
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		switch strings.ToLower(strings.TrimSpace(key)) {
		case "uris":
			uris = strings.Fields(val)
		case "types":
			isDeb = false
			for _, t := range strings.Fields(val) {
				if t == "deb" || t == "deb-src" {
					isDeb = true
				}
			}
		case "enabled":
			enabled = strings.ToLower(val) != "no"
		}
	}
	return flush()
}

func mirrorFromOneLine(file string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 || (fields[0] != "deb" && fields[0] != "deb-src") {
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
		if len(rest) > 0 && usableMirror(rest[0]) {
			return strings.TrimRight(rest[0], "/")
		}
	}
	return ""
}
