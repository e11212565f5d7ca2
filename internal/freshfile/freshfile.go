// Package freshfile keeps local copies of remote files, such as a Debian mirror's
// indexes: a copy is used while it is younger than its maximum age, then renewed with a
// conditional request (If-Modified-Since, so an unchanged file is not fetched again),
// and kept when the server cannot be reached.
package freshfile

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/eclipse-atesor/atesor-go/internal/atomicfile"
)

// DefaultMaxAge is the age after which [Refresh] asks the server again when the caller
// gives none: the cadence of apt's own list refreshes.
const DefaultMaxAge = 24 * time.Hour

// Refresh keeps file a copy of url no older than maxAge (default [DefaultMaxAge]): a
// missing copy is downloaded, an old one renewed with a conditional request, and an
// old one kept when the server cannot be reached, so the error is only ever that no
// copy could be had. changed reports a new download. See [Download] for client and
// limit.
func Refresh(ctx context.Context, client *http.Client, url, file string, maxAge time.Duration, limit int64) (changed bool, err error) {
	if Fresh(file, maxAge) {
		return false, nil
	}
	fi, statErr := os.Stat(file)
	var since time.Time
	if statErr == nil {
		since = fi.ModTime()
	}
	changed, err = Download(ctx, client, url, file, since, limit)
	if err != nil && statErr == nil {
		return false, nil // the old copy serves
	}
	return changed, err
}

// Fresh reports whether file is there and no older than maxAge (default
// [DefaultMaxAge]), so [Refresh] would not ask the server.
func Fresh(file string, maxAge time.Duration) bool {
	fi, err := os.Stat(file)
	return err == nil && time.Since(fi.ModTime()) <= cmp.Or(maxAge, DefaultMaxAge)
}

// Download fetches url into file through a temporary file beside it, so a reader never
// sees a partial file, and fails on more than limit bytes (0: no bound). With since set
// it asks If-Modified-Since, and a 304 only renews the file's time; changed reports a
// new file. client nil means http.DefaultClient; the caller's context bounds the time.
func Download(ctx context.Context, client *http.Client, url, file string, since time.Time, limit int64) (changed bool, err error) {
	return download(ctx, client, url, file, since, limit, nil)
}

// DownloadChecked fetches url into file like [Download] (unconditionally), and puts the
// new file in place only when check accepts it (check reads the complete temporary
// file at the path it is given): a download that fails its check never replaces file.
// The check's error is returned as a [*CheckError].
func DownloadChecked(ctx context.Context, client *http.Client, url, file string, limit int64, check func(tmp string) error) error {
	_, err := download(ctx, client, url, file, time.Time{}, limit, check)
	return err
}

// RefreshChecked is [DownloadChecked] with a conditional request: with since set it
// asks If-Modified-Since, and a 304 only renews file's time (changed false, no check:
// the file was checked when it was put in place).
func RefreshChecked(ctx context.Context, client *http.Client, url, file string, since time.Time, limit int64, check func(tmp string) error) (changed bool, err error) {
	return download(ctx, client, url, file, since, limit, check)
}

// CheckError is the error of a download that arrived complete but that the check of
// [DownloadChecked] refused: the server answered, with content that must not be used
// (as opposed to a server that could not be reached).
type CheckError struct{ Err error }

func (e *CheckError) Error() string { return e.Err.Error() }
func (e *CheckError) Unwrap() error { return e.Err }

func download(ctx context.Context, client *http.Client, url, file string, since time.Time, limit int64, check func(string) error) (changed bool, err error) {
	client = cmp.Or(client, http.DefaultClient)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false, err
	}
	if !since.IsZero() {
		req.Header.Set("If-Modified-Since", since.UTC().Format(http.TimeFormat))
	}
	resp, err := client.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusNotModified:
		now := time.Now()
		return false, os.Chtimes(file, now, now)
	case http.StatusOK:
	default:
		return false, fmt.Errorf("HTTP %s", resp.Status)
	}
	tmp, err := atomicfile.Create(file, 0o644)
	if err != nil {
		return false, err
	}
	defer tmp.Abort()
	body := io.Reader(resp.Body)
	if limit > 0 {
		body = io.LimitReader(resp.Body, limit+1)
	}
	n, err := io.Copy(tmp, body)
	if err != nil {
		return false, err
	}
	if limit > 0 && n > limit {
		return false, fmt.Errorf("larger than %d bytes", limit)
	}
	if check != nil {
		if err := tmp.Sync(); err != nil {
			return false, err
		}
		if err := check(tmp.Name()); err != nil {
			return false, &CheckError{Err: err}
		}
	}
	return true, tmp.Commit()
}
