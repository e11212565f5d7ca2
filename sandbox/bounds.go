package sandbox

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// ExtractLimits bounds what [ExtractWithLimits] unpacks from one archive; zero or
// negative fields mean no bound.
type ExtractLimits struct {
	// MaxBytes bounds the total size of the unpacked files.
	MaxBytes int64
	// MaxEntries bounds the number of entries (files, directories, links).
	MaxEntries int
}

// Environment variables that raise the extraction bounds.
const (
	EnvExtractMaxBytes   = "ATESOR_EXTRACT_MAX_BYTES"
	EnvExtractMaxEntries = "ATESOR_EXTRACT_MAX_ENTRIES"
)

// DefaultExtractLimits returns the bounds from $ATESOR_EXTRACT_MAX_BYTES (bytes with an
// optional K, M or G suffix) and $ATESOR_EXTRACT_MAX_ENTRIES, else 16 GiB and one
// million entries: far above any source tarball (the Linux kernel's is about 1.5 GiB
// and 90,000 entries), far below what fills a disk.
func DefaultExtractLimits() ExtractLimits {
	l := ExtractLimits{MaxBytes: 16 << 30, MaxEntries: 1_000_000}
	if v, err := parseSize(os.Getenv(EnvExtractMaxBytes)); err == nil && v != 0 {
		l.MaxBytes = v
	}
	if v, err := strconv.Atoi(strings.TrimSpace(os.Getenv(EnvExtractMaxEntries))); err == nil && v != 0 {
		l.MaxEntries = v
	}
	return l
}

// ExtractLimitError says that an archive exceeds a bound of [ExtractLimits].
type ExtractLimitError struct {
	Archive string
	What    string // "bytes" or "entries"
	Limit   int64
	Env     string // the variable that raises the bound
}

func (e *ExtractLimitError) Error() string {
	return fmt.Sprintf("%s unpacks to more than %d %s; if the archive is genuine, raise the limit with %s", e.Archive, e.Limit, e.What, e.Env)
}

// byteBudget is shared by the readers of one extraction.
type byteBudget struct {
	left      int64
	err       error
	unbounded bool
}

func (b *byteBudget) reader(r io.Reader) io.Reader {
	if b.unbounded {
		return r
	}
	return &budgetReader{r: r, b: b}
}

type budgetReader struct {
	r io.Reader
	b *byteBudget
}

func (br *budgetReader) Read(p []byte) (int, error) {
	if br.b.left <= 0 {
		// One more byte tells a file that ends exactly at the bound from a larger one.
		var one [1]byte
		if n, _ := br.r.Read(one[:]); n > 0 {
			return 0, br.b.err
		}
		return br.r.Read(p)
	}
	if int64(len(p)) > br.b.left {
		p = p[:br.b.left]
	}
	n, err := br.r.Read(p)
	br.b.left -= int64(n)
	return n, err
}
