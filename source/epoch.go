package source

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/eclipse-atesor/atesor-go/internal/archive"
)

// SOURCE_DATE_EPOCH of a source: the build's date is the source's own, so a port and
// its replay, on any day, build with the same date.

// archiveEpoch returns SOURCE_DATE_EPOCH for a source archive: the newest modification
// time of its entries, in Unix seconds. The same archive always gives the same epoch.
// It stops when ctx ends (reading a large archive
// through takes a while).
func archiveEpoch(ctx context.Context, file string) (int64, error) {
	newest, err := archive.NewestModTime(ctx, file)
	if err != nil {
		return 0, fmt.Errorf("source date of %s: %w", file, err)
	}
	if newest <= 0 {
		return 0, errors.New("source date of " + file + ": no entry has a modification time")
	}
	return newest, nil
}

// treeEpoch returns SOURCE_DATE_EPOCH for a source directory on the host: the newest
// modification time of its regular files (.git skipped), in Unix seconds.
func treeEpoch(dir string) (int64, error) {
	var newest int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if t := fi.ModTime().Unix(); t > newest {
			newest = t
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("source date of %s: %w", dir, err)
	}
	if newest <= 0 {
		return 0, errors.New("source date of " + dir + ": no file")
	}
	return newest, nil
}
