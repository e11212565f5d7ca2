package repair

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go/internal/atomicfile"
	"github.com/eclipse-atesor/atesor-go/internal/debarchive"
)

// FileKind is the kind of file a build found missing.
type FileKind string

// The kinds of missing files the missing-package rule resolves.
const (
	KindHeader    FileKind = "header"     // fatal error: zlib.h: No such file or directory
	KindLibrary   FileKind = "library"    // cannot find -lz
	KindPkgConfig FileKind = "pkg-config" // No package 'zlib' found
	KindProgram   FileKind = "program"    // bison: command not found
	// KindGoPackage is a Go package's import path that a GOPATH build found on no GOPATH
	// entry (cannot find package "github.com/onsi/ginkgo" in any of: ...): Debian's
	// golang-*-dev packages install their sources under usr/share/gocode/src.
	KindGoPackage FileKind = "go-package"
	// KindCMakePackage is a CMake package that find_package() found no configuration
	// file of (Could not find a package configuration file provided by "Kodi"): the
	// -dev package that installs KodiConfig.cmake or kodi-config.cmake below usr/lib or
	// usr/share, where CMake's search looks. Its name is looked up in lower case, as
	// CMake matches the package name in the directories it searches.
	KindCMakePackage FileKind = "cmake-package"
)

// GoPackageFunc returns the distro package that installs the sources of a Go import
// path for GOPATH builds and the source it is built from; "" when none does.
type GoPackageFunc func(ctx context.Context, importPath string) (pkg, source string, err error)

// PackageFinder finds the distro packages that provide a file, best first.
type PackageFinder interface {
	Providers(kind FileKind, name string) []string
}

// Contents is an index of a Debian archive's Contents file, cut down to the files
// builds find missing: headers under usr/include, libraries (lib*.so, lib*.a) in the
// library directories, pkg-config modules and programs in the bin directories. Lookups
// are map reads.
type Contents struct {
	byKey map[string][]string // kind + "\x00" + name -> packages
	// headers maps a header's base name to its paths under usr/include, for a header
	// included by a suffix of its path (glib.h lives in usr/include/glib-2.0/).
	headers map[string][]string
}

var _ PackageFinder = (*Contents)(nil)

// ParseContents reads an uncompressed Contents file ("path   section/pkg,section/pkg"
// per line). triplet is the multiarch directory (riscv64-linux-gnu) whose include and
// library directories count like the plain ones.
func ParseContents(r io.Reader, triplet string) (*Contents, error) {
	c := &Contents{byKey: map[string][]string{}, headers: map[string][]string{}}
	if err := c.add(r, triplet); err != nil {
		return nil, err
	}
	return c, nil
}

// add indexes one more Contents file.
func (c *Contents) add(r io.Reader, triplet string) error {
	intern := map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	lines := 0
	for sc.Scan() {
		raw := sc.Bytes()
		lines++
		if !interesting(raw) {
			continue
		}
		line := strings.TrimRight(string(raw), " \t\r")
		i := strings.LastIndexAny(line, " \t")
		if i <= 0 {
			continue
		}
		file, loc := strings.TrimRight(line[:i], " \t"), line[i+1:]
		kind, name := classifyPath(strings.TrimPrefix(file, "/"), triplet)
		if kind == "" {
			continue
		}
		key := string(kind) + "\x00" + name
		for _, q := range strings.Split(loc, ",") {
			pkg := q[strings.LastIndexByte(q, '/')+1:]
			if pkg == "" {
				continue
			}
			if p, ok := intern[pkg]; ok {
				pkg = p
			} else {
				intern[pkg] = pkg
			}
			if !slices.Contains(c.byKey[key], pkg) {
				c.byKey[key] = append(c.byKey[key], pkg)
			}
		}
		if kind == KindHeader {
			base := path.Base(name)
			if !slices.Contains(c.headers[base], name) {
				c.headers[base] = append(c.headers[base], name)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read the Contents index: %w", err)
	}
	if lines == 0 {
		return errors.New("the Contents index lists no files")
	}
	return nil
}

// interestingPrefixes are the directories classifyPath looks at; other lines are
// skipped before any allocation (most of an index is documentation and data).
var interestingPrefixes = [][]byte{[]byte(goSourceDir), []byte("usr/include/"), []byte("usr/bin/"), []byte("usr/sbin/"),
	[]byte("bin/"), []byte("sbin/"), []byte("usr/lib/"), []byte("lib/"), []byte("usr/share/pkgconfig/")}

// goSourceDir is where Debian's golang-*-dev packages install Go sources, by import
// path (knowledge.DistGoPath's src, without the leading slash).
const goSourceDir = "usr/share/gocode/src/"

func interesting(line []byte) bool {
	for _, p := range interestingPrefixes {
		if bytes.HasPrefix(line, p) {
			return true
		}
	}
	// CMake package configuration files under usr/share (usr/lib's are above).
	return bytes.HasPrefix(line, []byte("usr/share/")) && bytes.Contains(line, []byte("onfig.cmake"))
}

// classifyPath returns the kind and lookup name of an archive path, or "" when the
// path is nothing a build looks for.
func classifyPath(p, triplet string) (FileKind, string) {
	dir, base := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	switch {
	case strings.HasPrefix(p, goSourceDir) && strings.HasSuffix(base, ".go") && !strings.HasSuffix(base, "_test.go"):
		if pkg := strings.TrimPrefix(dir, strings.TrimSuffix(goSourceDir, "/")); strings.HasPrefix(pkg, "/") {
			return KindGoPackage, pkg[1:]
		}
		return "", ""
	case strings.HasPrefix(p, "usr/include/"):
		rel := strings.TrimPrefix(p, "usr/include/")
		if triplet != "" {
			rel = strings.TrimPrefix(rel, triplet+"/")
		}
		if rel == "" || strings.HasSuffix(rel, "/") {
			return "", ""
		}
		return KindHeader, rel
	case dir == "usr/bin" || dir == "bin" || dir == "usr/sbin" || dir == "sbin":
		return KindProgram, base
	case strings.HasSuffix(base, ".pc") && strings.HasSuffix(dir, "/pkgconfig") &&
		(strings.HasPrefix(dir, "usr/lib/") || strings.HasPrefix(dir, "usr/share/")):
		return KindPkgConfig, strings.TrimSuffix(base, ".pc")
	case (strings.HasPrefix(dir, "usr/lib/") || strings.HasPrefix(dir, "usr/share/")) && !strings.HasPrefix(dir, "usr/share/doc/") &&
		cmakeConfigFile.MatchString(base):
		m := cmakeConfigFile.FindStringSubmatch(base)
		return KindCMakePackage, strings.ToLower(m[1] + m[2])
	case strings.HasPrefix(base, "lib") && (strings.HasSuffix(base, ".so") || strings.HasSuffix(base, ".a")) && libDir(dir, triplet):
		return KindLibrary, base
	}
	return "", ""
}

// cmakeConfigFile is the name of a CMake package configuration file, which
// find_package() looks for in config mode: NameConfig.cmake or name-config.cmake.
var cmakeConfigFile = re(`^(?:([A-Za-z0-9_.+-]+)Config|([A-Za-z0-9_.+-]+)-config)\.cmake$`)

func libDir(dir, triplet string) bool {
	switch dir {
	case "usr/lib", "lib", "usr/lib/" + triplet, "lib/" + triplet:
		return true
	}
	return false
}

// Providers returns the packages that provide the file, best first: for headers,
// libraries and pkg-config modules the -dev packages, then names sharing a stem with the
// file, then shorter names; debug and cross packages last.
func (c *Contents) Providers(kind FileKind, name string) []string {
	if c == nil || name == "" {
		return nil
	}
	var pkgs []string
	switch kind {
	case KindLibrary:
		for _, ext := range []string{".so", ".a"} {
			pkgs = appendNew(pkgs, c.byKey[string(kind)+"\x00lib"+name+ext]...)
		}
	case KindHeader:
		name = strings.TrimPrefix(path.Clean("/"+name), "/")
		pkgs = appendNew(pkgs, c.byKey[string(kind)+"\x00"+name]...)
		if len(pkgs) == 0 {
			for _, rel := range c.headers[path.Base(name)] {
				if strings.HasSuffix(rel, "/"+name) {
					pkgs = appendNew(pkgs, c.byKey[string(kind)+"\x00"+rel]...)
				}
			}
		}
	case KindCMakePackage:
		pkgs = appendNew(pkgs, c.byKey[string(kind)+"\x00"+strings.ToLower(name)]...)
	default:
		pkgs = appendNew(pkgs, c.byKey[string(kind)+"\x00"+name]...)
	}
	return rankPackages(pkgs, kind, name)
}

// Len is the number of indexed names.
func (c *Contents) Len() int { return len(c.byKey) }

func appendNew(dst []string, src ...string) []string {
	for _, s := range src {
		if !slices.Contains(dst, s) {
			dst = append(dst, s)
		}
	}
	return dst
}

func rankPackages(pkgs []string, kind FileKind, name string) []string {
	stem := strings.ToLower(strings.TrimPrefix(strings.TrimSuffix(path.Base(name), path.Ext(name)), "lib"))
	score := func(p string) int {
		s := 0
		if strings.HasSuffix(p, "-dbg") || strings.HasSuffix(p, "-dbgsym") || strings.Contains(p, "-cross") ||
			strings.Contains(p, "mingw") || strings.HasSuffix(p, "-doc") {
			s += 100
		}
		if kind != KindProgram && !strings.HasSuffix(p, "-dev") {
			s += 10
		}
		if stem != "" && !strings.Contains(p, stem) {
			s += 5
		}
		return s
	}
	out := slices.Clone(pkgs)
	slices.SortStableFunc(out, func(a, b string) int {
		if c := cmp.Compare(score(a), score(b)); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a), len(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return out
}

// ContentsOptions say where the Contents index comes from and where it is cached.
type ContentsOptions struct {
	// Mirror is the archive's base URL (the directory holding dists/), from
	// knowledge.DebianMirror.
	Mirror string
	// Suite, Component and Arch name the index: trixie, main, riscv64.
	Suite, Component, Arch string
	// Triplet is the multiarch directory name, riscv64-linux-gnu.
	Triplet string
	// CacheDir keeps the downloaded index (under the state home).
	CacheDir string
	// MaxAge is how long a cached index is used without asking the mirror whether it
	// changed (a conditional request). Default 24 h, the cadence of apt list refreshes.
	MaxAge time.Duration
	// Client is the HTTP client; nil means http.DefaultClient.
	Client *http.Client
	// Keyrings are the OpenPGP keyrings the suite's InRelease is verified with
	// (default the Debian archive keyring).
	Keyrings []string
}

// OpenContents returns the Contents index of opts: the architecture's file and the one
// of architecture-independent packages (Contents-all: autoconf, automake, header-only
// libraries), each checked against the SHA-256 and size that the suite's signed
// InRelease lists (internal/debarchive: the cached copy while it matches, else the
// mirror's; the InRelease is renewed after MaxAge with a conditional request), or that
// the signed InRelease of the suite's other name (stable) lists, when the mirror keeps
// an older Contents file than the suite's newest InRelease names
// ([debarchive.Client.LookupIndex]).
//
// The cut-down index is kept next to the downloads (a gob file, keyed by the hashes of
// the files it was made from), so later runs load it in well under a second instead of
// reading the archive's files again.
func OpenContents(ctx context.Context, opts ContentsOptions) (*Contents, error) {
	if opts.Mirror == "" {
		return nil, errors.New("repair: no Debian mirror for the Contents index: set ATESOR_DEBIAN_MIRROR (graph.Config.DebianMirror) or configure apt")
	}
	opts.Component = cmp.Or(opts.Component, "main")
	if opts.Suite == "" || opts.Arch == "" || opts.CacheDir == "" {
		return nil, errors.New("repair: the Contents index needs a suite, an architecture and a cache directory")
	}
	client, err := debarchive.Open(debarchive.Settings{Mirror: opts.Mirror, Suite: opts.Suite, CacheDir: opts.CacheDir,
		Keyrings: opts.Keyrings, MaxAge: opts.MaxAge, HTTP: opts.Client})
	if err != nil {
		return nil, fmt.Errorf("repair: the Contents index: %w", err)
	}
	// The index's format is part of its key: an index saved before the Go packages
	// were indexed is made again.
	gzFiles, hashes := []string(nil), []string{contentsIndexFormat}
	for _, arch := range []string{opts.Arch, "all"} {
		name := opts.Component + "/Contents-" + arch + ".gz"
		// Contents files are only looked up in, so one an older signed Release of the
		// codename lists serves (a caching proxy may keep them longer than InRelease).
		file, hash, _, err := client.LookupIndex(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("repair: the Contents index: %w", err)
		}
		gzFiles = append(gzFiles, file)
		hashes = append(hashes, hash.SHA256)
	}
	idx := strings.TrimSuffix(gzFiles[0], ".gz") + ".index"
	if loaded, err := loadIndex(idx, hashes); err == nil {
		return loaded, nil
	}
	c := &Contents{byKey: map[string][]string{}, headers: map[string][]string{}}
	for _, file := range gzFiles {
		if err := parseFile(file, opts.Triplet, c); err != nil {
			return nil, err
		}
	}
	if err := saveIndex(idx, hashes, c); err != nil {
		return c, nil //nolint:nilerr // the index works without its cache file
	}
	return c, nil
}

// contentsIndexFormat names the kinds a saved index holds.
const contentsIndexFormat = "kinds: header library pkg-config program go-package cmake-package"

// indexFile is the gob form of a cut-down index.
type indexFile struct {
	// Sources are the SHA-256 of the Contents files it was made from.
	Sources []string
	ByKey   map[string][]string
	Headers map[string][]string
}

// loadIndex reads the saved index when it was made from the files with these hashes.
func loadIndex(idx string, hashes []string) (*Contents, error) {
	f, err := os.Open(idx)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var x indexFile
	if err := gob.NewDecoder(bufio.NewReader(f)).Decode(&x); err != nil || len(x.ByKey) == 0 {
		return nil, fmt.Errorf("index %s: %v", idx, err)
	}
	if !slices.Equal(x.Sources, hashes) {
		return nil, errors.New("stale index")
	}
	return &Contents{byKey: x.ByKey, headers: x.Headers}, nil
}

func saveIndex(idx string, hashes []string, c *Contents) error {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(indexFile{Sources: hashes, ByKey: c.byKey, Headers: c.headers}); err != nil {
		return err
	}
	return atomicfile.WriteFile(idx, buf.Bytes(), 0o644)
}

// parseFile adds a downloaded (gzip) Contents file to c.
func parseFile(file, triplet string, c *Contents) error {
	f, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("repair: Contents index: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		os.Remove(file)
		return fmt.Errorf("repair: Contents index %s is not gzip; removed it, the next run downloads it again: %w", file, err)
	}
	if err := c.add(bufio.NewReaderSize(zr, 1<<20), triplet); err != nil {
		return fmt.Errorf("repair: %s: %w", file, err)
	}
	return nil
}
