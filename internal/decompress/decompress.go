// Package decompress opens a compressed stream by the file-name extension that names
// its format, for the archive readers of the sandbox (source tarballs) and of
// internal/debpkg (.deb members), so both accept the same formats in the same way.
package decompress

import (
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"

	"github.com/ulikunitz/xz"
	"github.com/ulikunitz/xz/lzma"
)

// ErrUnsupported is wrapped by the error for an extension of no supported format.
var ErrUnsupported = errors.New("unsupported compression")

// Reader returns the decompressed stream of r, whose format the extension ext names:
// ".gz", ".xz", ".bz2" or ".lzma"; "" and ".tar" mean not compressed. Close the
// returned reader when done (it does not close r).
func Reader(ext string, r io.Reader) (io.ReadCloser, error) {
	switch ext {
	case "", ".tar":
		return io.NopCloser(r), nil
	case ".gz":
		return gzip.NewReader(r)
	case ".xz":
		zr, err := xz.NewReader(r)
		if err != nil {
			return nil, err
		}
		return io.NopCloser(zr), nil
	case ".lzma":
		zr, err := lzma.NewReader(r)
		if err != nil {
			return nil, err
		}
		return io.NopCloser(zr), nil
	case ".bz2":
		return io.NopCloser(bzip2.NewReader(r)), nil
	}
	return nil, fmt.Errorf("%w: %q", ErrUnsupported, ext)
}
