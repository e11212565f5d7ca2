package sandbox

import (
	"context"
	"errors"
	"fmt"
)

// ArchiveEpoch returns SOURCE_DATE_EPOCH for a source archive: the newest modification
// time of its entries, in Unix seconds. The same archive always gives the same epoch,
// so a port and its replay build with the same date. It stops when ctx ends (reading a
// large archive through takes a while).
func ArchiveEpoch(ctx context.Context, archive string) (int64, error) {
	kind := ArchiveKind(archive)
	if kind == "" {
		return 0, fmt.Errorf("source date of %s: not a known archive type", archive)
	}
	var newest int64
	err := walkArchive(ctx, archive, kind, func(_ string, e *entry) error {
		if t := e.mtime.Unix(); !e.mtime.IsZero() && t > newest {
			newest = t
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("source date of %s: %w", archive, err)
	}
	if newest <= 0 {
		return 0, errors.New("source date of " + archive + ": no entry has a modification time")
	}
	return newest, nil
}
