package debpkg

import (
	"archive/tar"
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/eclipse-atesor/atesor-go/internal/decompress"
)

// Limits bound what [Read] keeps and reads; zero fields take the defaults of
// [DefaultLimits].
type Limits struct {
	// ControlFile bounds one kept file of the control member.
	ControlFile int64
	// Library bounds one kept shared library; larger ones are skipped and named in
	// [Contents.Skipped].
	Library int64
	// Libraries bounds the kept libraries together.
	Libraries int64
	// Decompressed bounds the bytes read from each decompressed member.
	Decompressed int64
}

// DefaultLimits: 4 MiB per control file, 256 MiB per library, 512 MiB of libraries,
// 4 GiB per decompressed member.
func DefaultLimits() Limits {
	return Limits{ControlFile: 4 << 20, Library: 256 << 20, Libraries: 512 << 20, Decompressed: 4 << 30}
}

// Contents is what [Read] keeps of a package.
type Contents struct {
	// Control maps the names of the control member's files that were asked for
	// ("symbols", "shlibs", "control") to their contents; a name is absent when the
	// package has no such file.
	Control map[string][]byte
	// Libraries are the data member's regular files named like shared libraries
	// (lib*.so, lib*.so.N...) that are ELF files, in archive order.
	Libraries []File
	// Skipped names shared libraries left out because of the size limits.
	Skipped []string
}

// File is one kept file of the data member; Path is relative to the package's root
// ("usr/lib/riscv64-linux-gnu/libz.so.1.3.1").
type File struct {
	Path string
	Data []byte
}

// ErrNotDeb is wrapped by the errors for a file that is not a Debian binary package.
var ErrNotDeb = errors.New("not a Debian binary package")

// ErrUnsupportedCompression is wrapped by the error for a member compressed with a
// method this package cannot read (zstd).
var ErrUnsupportedCompression = errors.New("unsupported compression")

const (
	arMagic      = "!<arch>\n"
	arHeaderSize = 60
	maxMembers   = 16
)

// sharedLibrary matches the base name of a shared library: libz.so, libz.so.1.3.1.
var sharedLibrary = regexp.MustCompile(`^lib.*\.so(\.[0-9][0-9A-Za-z.]*)?$`)

// Read reads a .deb and keeps the control files named in control and the data member's
// shared libraries (see [Contents]).
func Read(r io.Reader, control []string, l Limits) (*Contents, error) {
	d := DefaultLimits()
	if l.ControlFile <= 0 {
		l.ControlFile = d.ControlFile
	}
	if l.Library <= 0 {
		l.Library = d.Library
	}
	if l.Libraries <= 0 {
		l.Libraries = d.Libraries
	}
	if l.Decompressed <= 0 {
		l.Decompressed = d.Decompressed
	}
	br := bufio.NewReader(r)
	magic := make([]byte, len(arMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != arMagic {
		return nil, fmt.Errorf("debpkg: no ar header: %w", ErrNotDeb)
	}
	want := map[string]bool{}
	for _, c := range control {
		want[c] = true
	}
	c := &Contents{Control: map[string][]byte{}}
	var sawVersion, sawControl, sawData bool
	hdr := make([]byte, arHeaderSize)
	for i := 0; ; i++ {
		if _, err := io.ReadFull(br, hdr); err != nil {
			if errors.Is(err, io.EOF) && i > 0 {
				break
			}
			return nil, fmt.Errorf("debpkg: member header %d: %w", i, errors.Join(ErrNotDeb, err))
		}
		if i >= maxMembers {
			return nil, fmt.Errorf("debpkg: more than %d members: %w", maxMembers, ErrNotDeb)
		}
		if string(hdr[58:60]) != "`\n" {
			return nil, fmt.Errorf("debpkg: bad member header %d: %w", i, ErrNotDeb)
		}
		name := strings.TrimSuffix(strings.TrimSpace(string(hdr[0:16])), "/")
		size, err := strconv.ParseInt(strings.TrimSpace(string(hdr[48:58])), 10, 64)
		if err != nil || size < 0 {
			return nil, fmt.Errorf("debpkg: member %q: bad size: %w", name, ErrNotDeb)
		}
		body := io.LimitReader(br, size)
		switch {
		case i == 0:
			if name != "debian-binary" {
				return nil, fmt.Errorf("debpkg: first member is %q, not debian-binary: %w", name, ErrNotDeb)
			}
			sawVersion = true
		case strings.HasPrefix(name, "control.tar"):
			sawControl = true
			err = readTar(name, body, l.Decompressed, func(h *tar.Header, tr *tar.Reader) error {
				base := path.Base(path.Clean("/" + h.Name))
				if h.Typeflag != tar.TypeReg || !want[base] || path.Dir(path.Clean("/"+h.Name)) != "/" {
					return nil
				}
				if h.Size > l.ControlFile {
					return fmt.Errorf("control file %s is larger than %d bytes", base, l.ControlFile)
				}
				b, err := io.ReadAll(io.LimitReader(tr, l.ControlFile))
				if err != nil {
					return err
				}
				c.Control[base] = b
				return nil
			})
		case strings.HasPrefix(name, "data.tar"):
			sawData = true
			var kept int64
			err = readTar(name, body, l.Decompressed, func(h *tar.Header, tr *tar.Reader) error {
				p := strings.TrimPrefix(path.Clean("/"+h.Name), "/")
				if h.Typeflag != tar.TypeReg || !sharedLibrary.MatchString(path.Base(p)) {
					return nil
				}
				if h.Size > l.Library || kept+h.Size > l.Libraries {
					c.Skipped = append(c.Skipped, p)
					return nil
				}
				b, err := io.ReadAll(io.LimitReader(tr, h.Size))
				if err != nil {
					return err
				}
				if !bytes.HasPrefix(b, []byte("\x7fELF")) {
					return nil
				}
				kept += int64(len(b))
				c.Libraries = append(c.Libraries, File{Path: p, Data: b})
				return nil
			})
		}
		if err != nil {
			return nil, fmt.Errorf("debpkg: member %s: %w", name, err)
		}
		// Skip what the member's reader left, and the padding to an even offset.
		if _, err := io.Copy(io.Discard, body); err != nil {
			return nil, fmt.Errorf("debpkg: member %s: %w", name, err)
		}
		if size%2 == 1 {
			if _, err := br.Discard(1); err != nil && !errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("debpkg: member %s: %w", name, err)
			}
		}
	}
	if !sawVersion || !sawControl || !sawData {
		return nil, fmt.Errorf("debpkg: a control or data member is missing: %w", ErrNotDeb)
	}
	return c, nil
}

// readTar decompresses a member by its name's extension and calls fn for each entry.
func readTar(name string, r io.Reader, limit int64, fn func(*tar.Header, *tar.Reader) error) error {
	ext := path.Ext(name)
	dr, err := decompress.Reader(ext, r)
	if errors.Is(err, decompress.ErrUnsupported) {
		return fmt.Errorf("%w: %s members (extract the package with dpkg-deb instead)", ErrUnsupportedCompression, ext)
	}
	if err != nil {
		return err
	}
	defer dr.Close()
	tr := tar.NewReader(&capped{r: dr, left: limit})
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(h, tr); err != nil {
			return err
		}
	}
}

// capped fails a read past its limit instead of ending quietly, so an oversized member
// is an error rather than a truncated listing.
type capped struct {
	r    io.Reader
	left int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, errors.New("decompressed member exceeds the size limit")
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}
