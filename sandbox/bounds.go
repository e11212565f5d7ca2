package sandbox

import (
	"fmt"
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
	if v, err := ParseSize(os.Getenv(EnvExtractMaxBytes)); err == nil && v != 0 {
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

// byteBudget is the byte bound shared by the files of one extraction or tree copy; a
// nil budget is no bound.
type byteBudget struct {
	left      int64
	unbounded bool
	archive   string
	limit     int64
}

func newByteBudget(archive string, l ExtractLimits) *byteBudget {
	return &byteBudget{left: l.MaxBytes, unbounded: l.MaxBytes <= 0, archive: archive, limit: l.MaxBytes}
}

// take counts n more bytes, or refuses them with an [*ExtractLimitError].
func (b *byteBudget) take(n int64) error {
	if b == nil || b.unbounded {
		return nil
	}
	if n > b.left {
		b.left = 0
		return &ExtractLimitError{Archive: b.archive, What: "bytes", Limit: b.limit, Env: EnvExtractMaxBytes}
	}
	b.left -= n
	return nil
}
