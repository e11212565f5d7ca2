package sandbox

import (
	"os"
	"time"

	"github.com/eclipse-atesor/atesor-go/internal/osroot"
)

// Modification times of copied source trees. make decides what to rebuild by comparing
// them, so a tree must arrive with the times its archive or directory recorded, not with
// the order in which the copy happened to write its files.

// dirTimes collects directory times while a tree is written: a directory's time changes
// with every entry made in it, so the times are set after the last entry, deepest first.
type dirTimes []dirTime

type dirTime struct {
	rel string
	t   time.Time
}

func (d *dirTimes) add(rel string, t time.Time) {
	if !t.IsZero() {
		*d = append(*d, dirTime{rel, t})
	}
}

// apply sets the collected times inside r, children before their parents (a tree is
// walked parents first, so the reverse order does).
func (d dirTimes) apply(r *os.Root) error {
	for i := len(d) - 1; i >= 0; i-- {
		f, err := r.Open(d[i].rel)
		if err != nil {
			return err
		}
		err = osroot.SetFileTime(f, d[i].t)
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}
