package verify

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"path"
	"sort"
	"strings"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/shellwords"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// noiseDirs are the path fragments of build scratch directories that never hold
// artifacts (the curator's noise list, plus .git). libtool's .libs/ is not one of them:
// it holds the real programs and libraries of an autotools+libtool build, while the
// files of the same names above it are libtool wrapper scripts (see [isNoisePath]).
var noiseDirs = []string{
	"/.git/", "/CMakeFiles/", "/_deps/", "/conftest", "/cmake-build-", "/CompilerId",
	"/CheckTypeSize/", "/CheckFunctionExists", "/CheckIncludeFile", "/TryCompile-",
	"/meson-private/", "/meson-info/", "/meson-logs/", "/build-aux/", "/autom4te.cache/",
}

// isNoisePath reports whether a sandbox path lies in a build scratch directory (see
// [noiseDirs]) or is a libtool temporary: .libs/lt-<program>, the copy of a program that
// libtool relinks to run it uninstalled. Everything else under .libs/ counts.
func isNoisePath(p string) bool {
	p = path.Clean("/" + p)
	for _, n := range noiseDirs {
		if strings.Contains(p+"/", n) {
			return true
		}
	}
	dir, base := path.Split(p)
	return strings.HasSuffix(dir, "/.libs/") && strings.HasPrefix(base, "lt-")
}

// ScanArtifacts finds every ELF file and static archive below the sandbox directory dir
// and inspects it with [InspectELF]. Symbolic links are not followed, and the curator's
// noise directories (see [noiseDirs]) are skipped. A sandbox whose tree is on the host
// is read through a [sandbox.Gate]: regular files only, each at most [sandbox.BoundArtifact]. A file that
// starts like an ELF file but is malformed or over the bound comes back as an artifact
// with its Problem set, so that it fails verification instead of being skipped silently.
// Artifacts come back sorted by path. Files skipped for a reason worth knowing are logged
// to log at debug level (nil: the default logger).
func ScanArtifacts(ctx context.Context, sb atesor.Sandbox, dir string, log *slog.Logger) ([]atesor.Artifact, error) {
	if log == nil {
		log = slog.Default()
	}
	dir = path.Clean(dir)
	g, err := sandbox.GateOf(sb)
	if err != nil {
		return nil, fmt.Errorf("verify: scan %s: %w", dir, err)
	}
	if g != nil {
		defer g.Close()
		return scanGate(ctx, g, log, dir, func(p string) string { return p })
	}
	var hp sandbox.HostPather
	if sandbox.As(sb, &hp) {
		// Only dir is visible on the host (a bind mount): the gate's tree is dir itself.
		hdir, err := hp.HostPath(dir)
		if err != nil {
			return nil, fmt.Errorf("verify: scan %s: %w", dir, err)
		}
		g, err := sandbox.NewGate(hdir)
		if err != nil {
			return nil, fmt.Errorf("verify: scan %s: %w", dir, err)
		}
		defer g.Close()
		return scanGate(ctx, g, log, "/", func(p string) string { return path.Join(dir, p) })
	}
	return scanByCommand(ctx, sb, dir)
}

// scanGate walks treeDir of the gate's tree; sandboxPath maps a path of that tree to the
// sandbox path artifacts are named by.
func scanGate(ctx context.Context, g *sandbox.Gate, log *slog.Logger, treeDir string, sandboxPath func(string) string) ([]atesor.Artifact, error) {
	var out []atesor.Artifact
	err := g.WalkDir(ctx, treeDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrPermission) || (p != treeDir && errors.Is(err, fs.ErrNotExist)) {
				return nil
			}
			return err
		}
		sp := sandboxPath(p)
		if d.IsDir() {
			if p != treeDir && isNoisePath(sp) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || isNoisePath(sp) {
			return nil
		}
		a, ok := inspectInGate(ctx, g, log, p)
		if ok {
			a.Path = sp
			out = append(out, a)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("verify: scan %s: %w", sandboxPath(treeDir), err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// inspectInGate inspects the file p found by a walk; ok is false for a file that is not
// an artifact (or vanished, or stopped being a regular file).
func inspectInGate(ctx context.Context, g *sandbox.Gate, log *slog.Logger, p string) (atesor.Artifact, bool) {
	f, err := g.Open(ctx, p, sandbox.NoFollow, sandbox.BoundArtifact)
	if errors.Is(err, sandbox.ErrTooLarge) {
		// Only an artifact-looking file over the bound is reported; its head is read
		// through a bound of its own.
		if head, herr := g.Open(ctx, p, sandbox.NoFollow, sandbox.Bound{Kind: "artifact", Max: -1}); herr == nil {
			defer head.Close()
			if looksLikeArtifact(head) {
				return atesor.Artifact{Size: head.Size, Problem: err.Error()}, true
			}
		}
		return atesor.Artifact{}, false
	}
	if err != nil {
		log.Debug("verify: skipping a file the gate refused", "path", p, "err", err)
		return atesor.Artifact{}, false
	}
	defer f.Close()
	if !looksLikeArtifact(f) {
		return atesor.Artifact{}, false
	}
	a, err := InspectELF(f.Section())
	if errors.Is(err, ErrMalformedELF) {
		return malformedArtifact(f.Section(), err), true
	}
	if err != nil {
		log.Debug("verify: skipping unreadable ELF", "path", p, "err", err)
		return atesor.Artifact{}, false
	}
	return a, true
}

// malformedArtifact describes a file that starts like an ELF file or archive but could
// not be read as one: its size, its hash (a malformed file the source ships is then
// recognised as shipped), and the problem.
func malformedArtifact(r *io.SectionReader, err error) atesor.Artifact {
	a := atesor.Artifact{Size: r.Size(), Problem: err.Error()}
	h := sha256.New()
	if _, herr := io.Copy(h, io.NewSectionReader(r, 0, r.Size())); herr == nil {
		a.SHA256 = hex.EncodeToString(h.Sum(nil))
	}
	return a
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
	line := "find " + shellwords.Quote(dir) + " -type f -size +0 -print0 2>/dev/null | " +
		"xargs -0 -r sh -c 'for f; do h=$(head -c 4 \"$f\" | od -An -c | tr -d \" \\n\"); " +
		"case \"$h\" in 177ELF|\\!\\<ar) printf \"%s\\n\" \"$f\";; esac; done' atesor"
	res, err := sb.Exec(ctx, atesor.Command{Line: line, Dir: "/", Timeout: 10 * time.Minute})
	if err != nil {
		return nil, fmt.Errorf("verify: scan %s: %w", dir, err)
	}
	var out []atesor.Artifact
	for _, p := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
		if p == "" || isNoisePath(p) {
			continue
		}
		data, err := sandbox.ReadBounded(ctx, sb, p, sandbox.BoundFile)
		if err != nil {
			continue
		}
		a, err := InspectELF(bytes.NewReader(data))
		if errors.Is(err, ErrMalformedELF) {
			a = malformedArtifact(io.NewSectionReader(bytes.NewReader(data), 0, int64(len(data))), err)
		} else if err != nil {
			continue
		}
		a.Path = p
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}
