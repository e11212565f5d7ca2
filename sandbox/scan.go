package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// NoiseDirs are the path fragments of build scratch directories that never hold
// artifacts (the curator's noise list, plus .git). libtool's .libs/ is not one of them:
// it holds the real programs and libraries of an autotools+libtool build, while the
// files of the same names above it are libtool wrapper scripts (see [IsNoisePath]).
var NoiseDirs = []string{
	"/.git/", "/CMakeFiles/", "/_deps/", "/conftest", "/cmake-build-", "/CompilerId",
	"/CheckTypeSize/", "/CheckFunctionExists", "/CheckIncludeFile", "/TryCompile-",
	"/meson-private/", "/meson-info/", "/meson-logs/", "/build-aux/", "/autom4te.cache/",
}

// IsNoisePath reports whether a sandbox path lies in a build scratch directory (see
// [NoiseDirs]) or is a libtool temporary: .libs/lt-<program>, the copy of a program that
// libtool relinks to run it uninstalled. Everything else under .libs/ counts.
func IsNoisePath(p string) bool {
	p = path.Clean("/" + p)
	for _, n := range NoiseDirs {
		if strings.Contains(p+"/", n) {
			return true
		}
	}
	dir, base := path.Split(p)
	return strings.HasSuffix(dir, "/.libs/") && strings.HasPrefix(base, "lt-")
}

// HostPather is implemented by sandboxes whose files are visible on the host; HostPath
// maps a sandbox path to the host path that holds it. [ScanArtifacts] uses it to walk
// the tree directly instead of listing it with a command.
type HostPather interface {
	HostPath(sandboxPath string) (string, error)
}

// maxArtifactSize bounds the files ScanArtifacts inspects through ReadFile.
const maxArtifactSize = 1 << 30

// ScanArtifacts finds every ELF file and static archive below the sandbox directory dir
// and inspects it with [InspectELF]. Symbolic links are not followed, and the curator's
// noise directories (see [NoiseDirs]) are skipped. Artifacts come back sorted by path.
func ScanArtifacts(ctx context.Context, sb atesor.Sandbox, dir string) ([]atesor.Artifact, error) {
	dir = path.Clean(dir)
	if hp, ok := sb.(HostPather); ok {
		return scanHost(ctx, hp, dir)
	}
	return scanByCommand(ctx, sb, dir)
}

func scanHost(ctx context.Context, hp HostPather, dir string) ([]atesor.Artifact, error) {
	hdir, err := hp.HostPath(dir)
	if err != nil {
		return nil, fmt.Errorf("sandbox: scan %s: %w", dir, err)
	}
	var out []atesor.Artifact
	err = filepath.WalkDir(hdir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrPermission) {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, _ := filepath.Rel(hdir, p)
		sp := path.Join(dir, filepath.ToSlash(rel))
		if d.IsDir() {
			if p != hdir && IsNoisePath(sp) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || IsNoisePath(sp) {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		defer f.Close()
		if !looksLikeArtifact(f) {
			return nil
		}
		a, err := InspectELF(f)
		if err != nil {
			slogFrom(ctx).Debug("sandbox: skipping unreadable ELF", "path", sp, "err", err)
			return nil
		}
		a.Path = sp
		out = append(out, a)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sandbox: scan %s: %w", dir, err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func looksLikeArtifact(f interface {
	ReadAt([]byte, int64) (int, error)
}) bool {
	b := make([]byte, 8)
	n, _ := f.ReadAt(b, 0)
	b = b[:n]
	return bytes.HasPrefix(b, []byte("\x7fELF")) || string(b) == arMagic
}

// scanByCommand lists candidate files with find inside the sandbox and reads the ELF
// ones through ReadFile.
func scanByCommand(ctx context.Context, sb atesor.Sandbox, dir string) ([]atesor.Artifact, error) {
	line := "find " + shellQuote(dir) + " -type f -size +0 -print0 2>/dev/null | " +
		"xargs -0 -r sh -c 'for f; do h=$(head -c 4 \"$f\" | od -An -c | tr -d \" \\n\"); " +
		"case \"$h\" in 177ELF|\\!\\<ar) printf \"%s\\n\" \"$f\";; esac; done' atesor"
	res, err := sb.Exec(ctx, atesor.Command{Line: line, Dir: "/", Timeout: 10 * time.Minute})
	if err != nil {
		return nil, fmt.Errorf("sandbox: scan %s: %w", dir, err)
	}
	var out []atesor.Artifact
	for _, p := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
		if p == "" || IsNoisePath(p) {
			continue
		}
		data, err := sb.ReadFile(ctx, p)
		if err != nil || len(data) > maxArtifactSize {
			continue
		}
		a, err := InspectELF(bytes.NewReader(data))
		if err != nil {
			continue
		}
		a.Path = p
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
