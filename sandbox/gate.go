package sandbox

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/beneath"
	"github.com/eclipse-atesor/atesor-go/sandbox/internal/accel"
)

// What a build leaves in the sandbox is hostile input to the host: a file the host reads
// may have been replaced by a link to a host file or to /dev/zero, by a FIFO that blocks
// the reader for good, by a device or by a file of many gigabytes. The host reads the
// sandbox's files only through a [Gate], which opens them beneath the run's host tree
// (links followed in sandbox coordinates, never out of it), accepts regular files only,
// and reads at most a stated bound per kind of file.

// Links says what a gate does with a symbolic link in the last component of a path.
type Links = beneath.Links

const (
	// NoFollow refuses a link in the last component: for paths a walk found as regular
	// files, so a link swapped in later is an error, not a file elsewhere.
	NoFollow = beneath.NoFollow
	// FollowInside follows a link in the last component inside the tree only: for paths
	// the host names itself that are links by design (lib.so -> lib.so.1).
	FollowInside = beneath.FollowInside
)

// Bound is the most the host reads of one kind of sandbox file: Kind names it in errors,
// Max is the largest size in bytes.
type Bound = beneath.Bound

// NotRegularError says that a sandbox path is a FIFO, device, socket, directory or (not
// followed) symbolic link; it wraps [ErrNotRegular].
type NotRegularError = beneath.NotRegularError

// TooLargeError says that a sandbox file exceeds the bound of its kind; it wraps
// [ErrTooLarge].
type TooLargeError = beneath.TooLargeError

// Sentinels of the gate's errors, for errors.Is.
var (
	ErrNotRegular = beneath.ErrNotRegular
	ErrTooLarge   = beneath.ErrTooLarge
)

// The bounds per kind of file. Each is far above what a genuine build produces of that
// kind and far below what exhausts the host's memory when read whole.
var (
	// BoundArtifact: an ELF file or static archive, inspected and hashed (streamed, not
	// held in memory whole).
	BoundArtifact = Bound{Kind: "artifact", Max: 4 << 30}
	// BoundLibrary: a shared library or archive whose symbols the export check reads.
	BoundLibrary = Bound{Kind: "library", Max: 1 << 30}
	// BoundHeader: a public header the export check parses.
	BoundHeader = Bound{Kind: "header", Max: 16 << 20}
	// BoundLog: a build or test log read for evidence.
	BoundLog = Bound{Kind: "log", Max: 64 << 20}
	// BoundConfigLog: config.log, CMakeError.log, meson-log.txt and the like, read by
	// scripted repairs.
	BoundConfigLog = Bound{Kind: "configure log", Max: 64 << 20}
	// BoundMetadata: a build file (Makefile.am, CMakeLists.txt, meson.build, Cargo.toml,
	// a README) that detection reads.
	BoundMetadata = Bound{Kind: "build metadata file", Max: 8 << 20}
	// BoundDpkgStatus: /var/lib/dpkg/status, read for installed versions.
	BoundDpkgStatus = accel.BoundDpkgStatus
	// BoundGoMod: a go.mod file.
	BoundGoMod = Bound{Kind: "go.mod", Max: 4 << 20}
	// BoundTestOutput: a test's output file (a test-suite log, a JUnit XML file).
	BoundTestOutput = Bound{Kind: "test output", Max: 64 << 20}
	// BoundSource: a source file read for excerpts or findings.
	BoundSource = Bound{Kind: "source file", Max: 16 << 20}
	// BoundFile: any other file read through a sandbox's ReadFile.
	BoundFile = Bound{Kind: "file", Max: 256 << 20}
)

// HostTree is implemented by sandboxes whose whole file tree is a directory on the host
// (the root-filesystem sandbox's merged overlay, the host sandbox's root, the test
// sandbox's temporary tree); Root returns it. The host reads it through [NewGate].
type HostTree interface {
	Root() string
}

var (
	_ HostTree = (*Rootfs)(nil)
	_ HostTree = (*Host)(nil)
)

// Gate opens the files of one host tree (a sandbox's root, a copied source tree): paths
// are taken in the tree's coordinates ("/" is the tree's root, an absolute link points
// into the tree), only regular files are opened, and reads are bounded (see [Bound]).
// Safe for concurrent use.
type Gate struct {
	dir *beneath.Dir
}

// NewGate opens a gate on the host directory root. Close it when done.
func NewGate(root string) (*Gate, error) {
	d, err := beneath.OpenDir(root)
	if err != nil {
		return nil, fmt.Errorf("sandbox: open the tree %s: %w", root, err)
	}
	return &Gate{dir: d}, nil
}

// Root returns the host directory the gate opens files beneath.
func (g *Gate) Root() string { return g.dir.Name() }

// Close releases the gate.
func (g *Gate) Close() error { return g.dir.Close() }

// Open opens the regular file p of the tree for reading, refusing anything else and a
// file larger than b.Max. Read it through [beneath.File.Section] or ReadAll, which stop at
// the size seen at the open.
func (g *Gate) Open(ctx context.Context, p string, links Links, b Bound) (*beneath.File, error) {
	return g.dir.Open(ctx, p, links, b)
}

// ReadFile reads the regular file p of the tree whole under the bound b.
func (g *Gate) ReadFile(ctx context.Context, p string, links Links, b Bound) ([]byte, error) {
	return g.dir.ReadFile(ctx, p, links, b)
}

// WalkDir walks the directory p of the tree like [fs.WalkDir], paths given to fn in the
// tree's coordinates; links are reported, not followed. Open what it finds with
// [NoFollow].
func (g *Gate) WalkDir(ctx context.Context, p string, fn fs.WalkDirFunc) error {
	return g.dir.WalkDir(ctx, p, fn)
}

// GateOf opens a gate on sb's host tree, or returns nil when sb does not expose one (see
// [HostTree]; found through wrappers with [As]).
func GateOf(sb atesor.Sandbox) (*Gate, error) {
	var ht HostTree
	if !As(sb, &ht) || ht.Root() == "" {
		return nil, nil
	}
	return NewGate(ht.Root())
}

// ReadBounded reads the sandbox file p under the bound b: through a gate on sb's host
// tree (the last component followed inside it) when sb has one, otherwise through
// sb.ReadFile with the bound checked on what it returns.
func ReadBounded(ctx context.Context, sb atesor.Sandbox, p string, b Bound) ([]byte, error) {
	g, err := GateOf(sb)
	if err != nil {
		return nil, err
	}
	if g != nil {
		defer g.Close()
		return g.ReadFile(ctx, p, FollowInside, b)
	}
	data, err := sb.ReadFile(ctx, p)
	if err != nil {
		return nil, err
	}
	if b.Max >= 0 && int64(len(data)) > b.Max {
		return nil, &TooLargeError{Path: p, Bound: b, Size: int64(len(data))}
	}
	return data, nil
}

// TreeFS returns the host tree under root (a sandbox's tree, or a copy of one) as an
// [fs.FS] read the gate's way: regular files of at most b.Max bytes and directories only,
// links in the last component refused, links above it resolved inside the tree. It holds
// no descriptor; ctx bounds its opens and reads.
func TreeFS(ctx context.Context, root string, b Bound) fs.FS { return beneath.FS(ctx, root, b) }

// SandboxFS returns the sandbox directory dir of sb as a [TreeFS] when sb's tree is on the
// host (see [HostTree]), or false.
func SandboxFS(ctx context.Context, sb atesor.Sandbox, dir string, b Bound) (fs.FS, bool) {
	var ht HostTree
	if !As(sb, &ht) || ht.Root() == "" {
		return nil, false
	}
	fsys := TreeFS(ctx, ht.Root(), b)
	rel := strings.TrimPrefix(path.Clean("/"+dir), "/")
	if rel == "" {
		return fsys, true
	}
	sub, err := fs.Sub(fsys, rel)
	if err != nil {
		return nil, false
	}
	return sub, true
}
