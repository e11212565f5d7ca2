package optimize

import (
	"slices"
	"time"
)

// Stats summarises the timed runs of one variant.
type Stats struct {
	Median, Min, Max time.Duration
	Durations        []time.Duration
}

// Summarize returns the median, minimum and maximum of ds (the median of an even count
// is the mean of the middle two). It returns zero Stats for no durations.
func Summarize(ds []time.Duration) Stats {
	if len(ds) == 0 {
		return Stats{}
	}
	sorted := slices.Clone(ds)
	slices.Sort(sorted)
	n := len(sorted)
	med := sorted[n/2]
	if n%2 == 0 {
		med = (sorted[n/2-1] + sorted[n/2]) / 2
	}
	return Stats{Median: med, Min: sorted[0], Max: sorted[n-1], Durations: slices.Clone(ds)}
}
