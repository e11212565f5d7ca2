package archive

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/eclipse-atesor/atesor-go/internal/bytesize"
)

// Limits bounds what [Extract] unpacks from one archive; zero or
// negative fields mean no bound.
type Limits struct {
	// MaxBytes bounds the total size of the unpacked files.
	MaxBytes int64
	// MaxEntries bounds the number of entries (files, directories, links).
	MaxEntries int
}

// Environment variables that raise the extraction bounds.
const (
	EnvMaxBytes   = "ATESOR_EXTRACT_MAX_BYTES"
	EnvMaxEntries = "ATESOR_EXTRACT_MAX_ENTRIES"
)

// DefaultLimits returns the bounds from $ATESOR_EXTRACT_MAX_BYTES (bytes with an
// optional K, M or G suffix) and $ATESOR_EXTRACT_MAX_ENTRIES, else 16 GiB and one
// million entries: far above any source tarball (the Linux kernel's is about 1.5 GiB
// and 90,000 entries), far below what fills a disk.
func DefaultLimits() Limits {
	l := Limits{MaxBytes: 16 << 30, MaxEntries: 1_000_000}
	if v, err := bytesize.Parse(os.Getenv(EnvMaxBytes)); err == nil && v != 0 {
		l.MaxBytes = v
	}
	if v, err := strconv.Atoi(strings.TrimSpace(os.Getenv(EnvMaxEntries))); err == nil && v != 0 {
		l.MaxEntries = v
	}
	return l
}

// LimitError says that an archive (or a tree copied within the same bounds) exceeds a
// bound of [Limits].
type LimitError struct {
	Archive string
	What    string // "bytes" or "entries"
	Limit   int64
	Env     string // the variable that raises the bound
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s unpacks to more than %d %s; if the archive is genuine, raise the limit with %s", e.Archive, e.Limit, e.What, e.Env)
}

// Budget is the byte bound shared by the files of one extraction or tree copy; a nil
// budget is no bound. A tree copied into a sandbox takes its files from the same
// budget as an archive, so that a directory of hard links to one large file cannot
// fill a disk an archive of it could not.
type Budget struct {
	left      int64
	unbounded bool
	archive   string
	limit     int64
}

// NewBudget returns the byte budget of l.MaxBytes for the archive or tree named name
// (the name is what its errors show).
func NewBudget(name string, l Limits) *Budget {
	return &Budget{left: l.MaxBytes, unbounded: l.MaxBytes <= 0, archive: name, limit: l.MaxBytes}
}

// Take counts n more bytes, or refuses them with a [*LimitError].
func (b *Budget) Take(n int64) error {
	if b == nil || b.unbounded {
		return nil
	}
	if n > b.left {
		b.left = 0
		return &LimitError{Archive: b.archive, What: "bytes", Limit: b.limit, Env: EnvMaxBytes}
	}
	b.left -= n
	return nil
}
