package archive

import (
	"fmt"
)

// Limits bounds what [Extract] unpacks from one archive; zero or
// negative fields mean no bound.
type Limits struct {
	// MaxBytes bounds the total size of the unpacked files.
	MaxBytes int64
	// MaxEntries bounds the number of entries (files, directories, links).
	MaxEntries int
}

// Environment variables the CLI sets the extraction bounds from (named in the errors);
// the library reads neither.
const (
	EnvMaxBytes   = "ATESOR_EXTRACT_MAX_BYTES"
	EnvMaxEntries = "ATESOR_EXTRACT_MAX_ENTRIES"
)

// DefaultLimits returns the default bounds: 16 GiB and one million entries, far above
// any source tarball (the Linux kernel's is about 1.5 GiB and 90,000 entries), far below
// what fills a disk.
func DefaultLimits() Limits {
	return Limits{MaxBytes: 16 << 30, MaxEntries: 1_000_000}
}

// Resolve fills the zero fields of l from [DefaultLimits]; a negative field (no bound)
// stays.
func (l Limits) Resolve() Limits {
	d := DefaultLimits()
	if l.MaxBytes == 0 {
		l.MaxBytes = d.MaxBytes
	}
	if l.MaxEntries == 0 {
		l.MaxEntries = d.MaxEntries
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
