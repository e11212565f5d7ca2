package provider

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

var (
	geminiRetryDelay = regexp.MustCompile(`"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"`)
	openRouterReset  = regexp.MustCompile(`"X-RateLimit-Reset"\s*:\s*"?(\d{10,16})"?`)
)

// maxRetryAfter bounds every parsed wait; longer values are taken as this.
const maxRetryAfter = 48 * time.Hour

// RetryAfter returns how long a provider asks to wait before the next request, or 0 when
// it does not say. It reads, in order: the Retry-After header (seconds or an HTTP date,
// relative to now), Retry-After-Ms, Gemini's RetryInfo retryDelay in the body ("22s"),
// and OpenRouter's metadata X-RateLimit-Reset in the body (a Unix time in milliseconds).
func RetryAfter(h http.Header, body []byte, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if d, ok := parseRetryAfter(v, now); ok {
			return d
		}
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return seconds(ms / 1000)
		}
	}
	if m := geminiRetryDelay.FindSubmatch(body); m != nil {
		if s, err := strconv.ParseFloat(string(m[1]), 64); err == nil {
			return seconds(s)
		}
	}
	if m := openRouterReset.FindSubmatch(body); m != nil {
		if ms, err := strconv.ParseInt(string(m[1]), 10, 64); err == nil {
			if ms < 1e12 { // seconds, not milliseconds
				ms *= 1000
			}
			return seconds(float64(ms-now.UnixMilli()) / 1000)
		}
	}
	return 0
}

// parseRetryAfter reads a Retry-After value: delay seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 {
			return 0, false
		}
		return seconds(s), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return clampWait(t.Sub(now)), true
	}
	return 0, false
}

func clampWait(d time.Duration) time.Duration {
	switch {
	case d < 0:
		return 0
	case d > maxRetryAfter:
		return maxRetryAfter
	}
	return d
}

// seconds converts a wait in seconds, clamped to [0, maxRetryAfter], without overflow.
func seconds(s float64) time.Duration {
	if !(s > 0) { // also NaN
		return 0
	}
	if s >= maxRetryAfter.Seconds() {
		return maxRetryAfter
	}
	return time.Duration(s * float64(time.Second))
}
