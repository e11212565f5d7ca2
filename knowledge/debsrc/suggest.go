package debsrc

import (
	"cmp"
	"slices"
	"strings"
)

// Suggest returns up to n names of known closest to name: names that contain it or
// that it contains first, then by edit distance (at most a third of the name's length,
// at least 2), ties by name.
func Suggest(name string, known map[string]bool, n int) []string {
	type cand struct {
		name  string
		score int
	}
	maxDist := max(2, len(name)/3)
	var cs []cand
	for k := range known {
		if k == name {
			continue
		}
		d := distance(name, k, maxDist)
		switch {
		case d <= maxDist:
		case len(name) >= 3 && (strings.Contains(k, name) || strings.Contains(name, k) && len(k) >= 3):
			d = maxDist + 1 + abs(len(k)-len(name))
		default:
			continue
		}
		cs = append(cs, cand{k, d})
	}
	slices.SortFunc(cs, func(a, b cand) int {
		return cmp.Or(cmp.Compare(a.score, b.score), strings.Compare(a.name, b.name))
	})
	out := make([]string, 0, n)
	for _, c := range cs {
		if len(out) == n {
			break
		}
		out = append(out, c.name)
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// distance is the Levenshtein distance of a and b, or limit+1 when it exceeds limit.
func distance(a, b string, limit int) int {
	if abs(len(a)-len(b)) > limit {
		return limit + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
			best = min(best, cur[j])
		}
		if best > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
