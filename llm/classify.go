package llm

import (
	"context"
	"errors"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go"
)

// MaxRetryAfterWait is the longest Retry-After a call waits for (once per model) before
// trying the same model again; a longer one rotates to the next model.
const MaxRetryAfterWait = 65 * time.Second

// minTokenCap is the lowest output cap a 402 "can only afford N" lowers a pool to.
const minTokenCap = 256

var (
	affordRe = regexp.MustCompile(`can only afford (\d+)`)
	slugRe   = regexp.MustCompile(`use this slug instead:\s*["'\x60]?([A-Za-z0-9][A-Za-z0-9._:@/+-]*)`)
)

// failure is what a failed model call means for the pool logic.
type failure struct {
	err        error
	provider   *atesor.ProviderError
	auth       bool          // 401/403: the key is wrong; stop
	dailyCap   bool          // free-models-per-day: stop
	afford     int           // 402 can only afford N
	slug       string        // use this slug instead: <id>
	timeout    bool          // no answer in time
	retryAfter time.Duration // the provider's wait hint
}

func classify(err error) failure {
	f := failure{err: err}
	text := err.Error()
	if errors.As(err, &f.provider) {
		text = f.provider.Body + "\n" + text
		f.retryAfter = f.provider.RetryAfter
		f.auth = f.provider.Status == 401 || f.provider.Status == 403
	}
	f.dailyCap = strings.Contains(text, "free-models-per-day")
	if m := affordRe.FindStringSubmatch(text); m != nil && (f.provider == nil || f.provider.Status == 402) {
		f.afford, _ = strconv.Atoi(m[1])
	}
	if m := slugRe.FindStringSubmatch(text); m != nil {
		f.slug = strings.TrimRight(m[1], ".,:;/")
	}
	f.timeout = isTimeout(err)
	return f
}

// isTimeout reports a call that got no answer in time: the wall timeout, the HTTP
// client's timeout, or a deadline inside the client.
func isTimeout(err error) bool {
	if errors.Is(err, ErrTimeout) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// cappedTo returns the output cap for a budget of n affordable tokens: 90 % of n, at
// least 256.
func cappedTo(n int) int { return max(minTokenCap, n*9/10) }
