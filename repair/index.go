package repair

import (
	"context"
	"sync"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
)

// Index is a pipeline's Contents index, opened once, on first use: loading it takes
// seconds (a 300 000-name index), and most runs never need it, so nothing opens it
// before the missing-package rule asks for a file. The zero Index is ready to use; it
// is safe for concurrent use and must not be copied after first use.
type Index struct {
	mu       sync.Mutex
	opened   bool
	contents *Contents
	err      error // the failed open's
	// Load opens the index; nil opens the Debian archive's Contents index for riscv64
	// of the platform's suite, from the mirror and into the cache directory given to
	// Finder.
	Load func(ctx context.Context, p atesor.Platform) (*Contents, error)
}

// IndexSource says where the default loader of an [Index] gets the Contents index.
type IndexSource struct {
	// Mirror is the Debian mirror; empty: the host's apt configuration's.
	Mirror string
	// CacheDir is the directory the verified index files are cached in.
	CacheDir string
}

// Finder is a [PackageFinder] for platform p that opens the index at its first lookup,
// by default from src; logErr gets the error of a failed open. A failed open is not
// retried by later lookups, unless ctx was cancelled.
func (i *Index) Finder(ctx context.Context, p atesor.Platform, src IndexSource, logErr func(error)) PackageFinder {
	return lazyFinder{ctx: ctx, idx: i, p: p, src: src, log: logErr}
}

// lazyFinder implements PackageFinder for the lazily opened index.
type lazyFinder struct {
	ctx context.Context
	idx *Index
	p   atesor.Platform
	src IndexSource
	log func(err error)
}

var (
	_ PackageFinder = lazyFinder{}
	_ indexError    = lazyFinder{}
)

// indexError is a finder that can say why it has no index: a rule's note then names
// the index's failure instead of saying that no package provides a file.
type indexError interface {
	// IndexErr is the error of the index's failed open; nil when it opened or was not
	// opened yet.
	IndexErr() error
}

func (l lazyFinder) IndexErr() error {
	l.idx.mu.Lock()
	defer l.idx.mu.Unlock()
	return l.idx.err
}

func (l lazyFinder) Providers(kind FileKind, name string) []string {
	c := l.idx.open(l.ctx, l.p, l.src, l.log)
	if c == nil {
		return nil
	}
	return c.Providers(kind, name)
}

func (i *Index) open(ctx context.Context, p atesor.Platform, src IndexSource, logErr func(error)) *Contents {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.opened {
		return i.contents
	}
	load := i.Load
	if load == nil {
		load = func(ctx context.Context, p atesor.Platform) (*Contents, error) {
			return openDebianContents(ctx, p, src)
		}
	}
	c, err := load(ctx, p)
	if err != nil {
		logErr(err)
		i.err = err
		if ctx.Err() == nil {
			i.opened = true // a failed download is not retried by every fix of this pipeline
		}
		return nil
	}
	i.contents, i.opened = c, true
	return c
}

// openDebianContents opens the archive's Contents index for riscv64 of the platform's
// suite from src's mirror, cached in its directory.
func openDebianContents(ctx context.Context, p atesor.Platform, src IndexSource) (*Contents, error) {
	mirror, err := knowledge.DebianMirror(src.Mirror)
	if err != nil {
		return nil, err
	}
	return OpenContents(ctx, ContentsOptions{Mirror: mirror, Suite: knowledge.DebianSuite(p), Arch: "riscv64",
		Triplet: p.Triplet, CacheDir: src.CacheDir})
}
