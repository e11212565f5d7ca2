// Package bytesize reads a byte count as the module's size settings are written: a
// number with an optional K, M or G suffix (powers of 1024). The sandbox's limits, the
// extraction bounds and the download bound all take sizes this way, so they read them
// with one parser.
package bytesize

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Parse parses "123", "512K", "256M", "8G" (powers of 1024; the suffix in either case).
func Parse(s string) (int64, error) {
	s = strings.TrimSpace(strings.ToUpper(s))
	if s == "" {
		return 0, errors.New("empty size")
	}
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("size %q: %w", s, err)
	}
	return v * mult, nil
}
