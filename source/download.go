package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/eclipse-atesor/atesor-go/internal/redact"
)

// downloadLimits bounds [download]; zero fields take the defaults of
// [defaultDownloadLimits].
type downloadLimits struct {
	// MaxBytes bounds the size of the downloaded file.
	MaxBytes int64
	// Stall is how long the download may go without receiving a byte (connecting and
	// waiting for the response headers included) before it is abandoned.
	Stall time.Duration
}

// Environment variables the CLI sets the download bounds from (named in the errors;
// the library reads neither).
const (
	EnvDownloadMaxBytes = "ATESOR_DOWNLOAD_MAX_BYTES"
	EnvDownloadStall    = "ATESOR_DOWNLOAD_STALL_TIMEOUT"
)

// defaultDownloadLimits returns the bounds of a zero field: 4 GiB and one minute.
func defaultDownloadLimits() downloadLimits {
	return downloadLimits{MaxBytes: 4 << 30, Stall: time.Minute}
}

// ErrDownloadLimit is wrapped by the error of [Resolve] when the download of a tarball
// URL exceeded its size bound or stalled.
var ErrDownloadLimit = errors.New("download limit reached")

// download fetches url into the file dest (created or truncated) over HTTP(S), bounded in
// size and abandoned when no byte arrives for the stall timeout. The errors say which
// bound was hit and which variable raises it.
//
// The URL may carry credentials (https://user:token@host/...): they are used, and
// removed from the text of every error.
func download(ctx context.Context, url, dest string, l downloadLimits) error {
	return redact.Error(downloadBounded(ctx, url, dest, l))
}

func downloadBounded(ctx context.Context, url, dest string, l downloadLimits) error {
	shown := redact.URLs(url)
	d := defaultDownloadLimits()
	if l.MaxBytes <= 0 {
		l.MaxBytes = d.MaxBytes
	}
	if l.Stall <= 0 {
		l.Stall = d.Stall
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stalled := fmt.Errorf("%w: no data for %s; check the network, or raise the timeout with %s", ErrDownloadLimit, l.Stall, EnvDownloadStall)
	watchdog := time.AfterFunc(l.Stall, func() { cancel(stalled) })
	defer watchdog.Stop()
	client := &http.Client{Transport: &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: l.Stall, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout: l.Stall,
		ForceAttemptHTTP2:   true,
	}}
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("download %s: %w", shown, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("download %s: %w", shown, causeOr(ctx, stalled, err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("download %s: HTTP %s", shown, resp.Status)
	}
	tooBig := fmt.Errorf("%w: larger than %d bytes; raise the limit with %s", ErrDownloadLimit, l.MaxBytes, EnvDownloadMaxBytes)
	if resp.ContentLength > l.MaxBytes {
		return fmt.Errorf("download %s: %w", shown, tooBig)
	}
	f, err := os.Create(dest)
	if err != nil {
		return fmt.Errorf("download %s: %w", shown, err)
	}
	buf := make([]byte, 64<<10)
	var total int64
	for {
		n, rerr := resp.Body.Read(buf)
		if n > 0 {
			watchdog.Reset(l.Stall)
			total += int64(n)
			if total > l.MaxBytes {
				f.Close()
				return fmt.Errorf("download %s: %w", shown, tooBig)
			}
			if _, err := f.Write(buf[:n]); err != nil {
				f.Close()
				return fmt.Errorf("download %s: %w", shown, err)
			}
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			f.Close()
			return fmt.Errorf("download %s: %w", shown, causeOr(ctx, stalled, rerr))
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("download %s: %w", shown, err)
	}
	return nil
}

// causeOr returns the cause of a cancelled ctx (the stall) rather than the transport's
// "context canceled", and reports the transport's own timeouts (dial, TLS handshake) as
// the same stall: the watchdog and those timeouts share one duration, so which fires
// first is a race the caller must not see.
func causeOr(ctx context.Context, stalled, err error) error {
	if c := context.Cause(ctx); c != nil && errors.Is(c, ErrDownloadLimit) {
		return c
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("%w (%v)", stalled, err)
	}
	return err
}
