package batch

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go/internal/escape"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/atomicfile"
)

// Summary is what a batch (or a merge of shards) produced.
type Summary struct {
	// Shards are the shards the summary covers (I/N), empty for an unsharded batch.
	Shards []string `json:"shards,omitempty"`
	// Total is the number of packages listed; Finished of them have a record and
	// Pending are the names without one (an interrupted batch).
	Total    int      `json:"total"`
	Finished int      `json:"finished"`
	Pending  []string `json:"pending,omitempty"`
	// Succeeded counts verified and cached ports; Failed the rest of the finished ones.
	Succeeded int `json:"succeeded"`
	Failed    int `json:"failed"`
	// CacheHits counts the ports the recipe cache answered.
	CacheHits int `json:"cache_hits"`
	// ByStatus and ByClass count the finished packages by status and by failure class
	// ("none" for successes).
	ByStatus map[atesor.Status]int `json:"by_status"`
	ByClass  map[string]int        `json:"by_failure_class"`
	// FailureGroups are the failed packages grouped by class and normalised first
	// error line, the largest group first: the next repair rule to write.
	FailureGroups []FailureGroup `json:"failure_groups,omitempty"`
	// PortSeconds is the sum of the ports' wall times; ElapsedSeconds the batch's own
	// (for merged shards, the longest shard's, since shards run side by side).
	PortSeconds    atesor.Seconds `json:"port_seconds"`
	ElapsedSeconds atesor.Seconds `json:"elapsed_seconds"`
	CostUSD        float64        `json:"cost_usd"`
	ModelCalls     int            `json:"model_calls"`
	// ExpectedChecked counts the verified ports whose list entry named expected
	// artifacts, ExpectedMet those among them that produced every one; MissingExpected
	// maps each of the others to the patterns none of its artifacts matched.
	ExpectedChecked int                 `json:"expected_checked,omitempty"`
	ExpectedMet     int                 `json:"expected_met,omitempty"`
	MissingExpected map[string][]string `json:"missing_expected,omitempty"`
	// Interrupted is true when the batch stopped before every package finished.
	Interrupted bool `json:"interrupted,omitempty"`
	// Updated is the latest finish time of a package.
	Updated  time.Time `json:"updated"`
	Packages []Record  `json:"packages"`
}

// Summarize counts records for the listed names; pending names are those without a
// record. Records of names not listed are left out.
func Summarize(names []string, records map[string]Record) *Summary {
	s := &Summary{ByStatus: map[atesor.Status]int{}, ByClass: map[string]int{}, Packages: []Record{}}
	listed := map[string]bool{}
	for _, n := range names {
		if listed[n] {
			continue
		}
		listed[n] = true
		s.Total++
		r, ok := records[n]
		if !ok {
			s.Pending = append(s.Pending, n)
			continue
		}
		s.Packages = append(s.Packages, r)
	}
	slices.Sort(s.Pending)
	slices.SortFunc(s.Packages, func(a, b Record) int { return strings.Compare(a.Name, b.Name) })
	for _, r := range s.Packages {
		s.Finished++
		if r.Status.Succeeded() {
			s.Succeeded++
		} else {
			s.Failed++
		}
		if r.CacheHit {
			s.CacheHits++
		}
		s.ByStatus[r.Status]++
		s.ByClass[r.Class()]++
		s.PortSeconds += r.Seconds
		s.CostUSD += r.CostUSD
		s.ModelCalls += r.ModelCalls
		if r.ExpectedChecked() {
			s.ExpectedChecked++
			if len(r.MissingExpected) == 0 {
				s.ExpectedMet++
			} else {
				if s.MissingExpected == nil {
					s.MissingExpected = map[string][]string{}
				}
				s.MissingExpected[r.Name] = r.MissingExpected
			}
		}
		if r.FinishedAt.After(s.Updated) {
			s.Updated = r.FinishedAt
		}
	}
	s.FailureGroups = GroupFailures(s.Packages)
	s.PortSeconds = toMillis(s.PortSeconds.Duration())
	s.CostUSD = round(s.CostUSD, 6)
	return s
}

// toMillis is a duration in JSON to the millisecond, as the batch files keep them.
func toMillis(d time.Duration) atesor.Seconds { return atesor.Seconds(d.Round(time.Millisecond)) }

func round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}

// WriteSummaries writes summary.json, summary.md and dashboard.html into dir, each
// replaced atomically.
func WriteSummaries(dir string, s *Summary) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("batch: %w", err)
	}
	if err := writeAtomic(filepath.Join(dir, SummaryJSON), append(b, '\n')); err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(dir, SummaryMD), []byte(Markdown(s))); err != nil {
		return err
	}
	html, err := Dashboard(s)
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, DashboardHTML), html)
}

// ReadSummary reads summary.json of dir.
func ReadSummary(dir string) (*Summary, error) {
	b, err := os.ReadFile(filepath.Join(dir, SummaryJSON))
	if err != nil {
		return nil, fmt.Errorf("batch: %w", err)
	}
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("batch: %s: %w", filepath.Join(dir, SummaryJSON), err)
	}
	return &s, nil
}

// Markdown renders the summary as a Markdown report.
func Markdown(s *Summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Batch summary\n\n")
	if len(s.Shards) > 0 {
		fmt.Fprintf(&b, "Shards: %s\n\n", escape.Markdown(strings.Join(s.Shards, ", ")))
	}
	if s.Interrupted {
		fmt.Fprintf(&b, "**Interrupted**: %d of %d packages did not run; run the batch again to continue.\n\n", len(s.Pending), s.Total)
	}
	fmt.Fprintf(&b, "| packages | finished | succeeded | failed | cache hits | port time | elapsed | cost |\n")
	fmt.Fprintf(&b, "|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(&b, "| %d | %d | %d | %d | %d | %s | %s | $%.4f |\n\n", s.Total, s.Finished, s.Succeeded, s.Failed,
		s.CacheHits, dur(s.PortSeconds), dur(s.ElapsedSeconds), s.CostUSD)
	fmt.Fprintf(&b, "## Verdicts by failure class\n\n| class | packages |\n|---|---:|\n")
	for _, k := range sortedKeys(s.ByClass) {
		fmt.Fprintf(&b, "| %s | %d |\n", mdCell(k), s.ByClass[k])
	}
	if len(s.FailureGroups) > 0 {
		fmt.Fprintf(&b, "\n## Failures by error\n\nFailed packages grouped by class and first error line (paths, quoted file names, numbers and the package's name reduced), the most frequent first.\n\n")
		fmt.Fprintf(&b, "| count | class | first error line | packages |\n|---:|---|---|---|\n")
		for _, g := range s.FailureGroups {
			fmt.Fprintf(&b, "| %d | %s | %s | %s |\n", g.Count, mdCell(g.Class), mdCell(g.Example), mdCell(strings.Join(g.Packages, ", ")))
		}
	}
	fmt.Fprintf(&b, "\n## Packages\n\n| package | status | class | time | cost | calls | cache | reason |\n|---|---|---|---:|---:|---:|---|---|\n")
	for _, r := range s.Packages {
		cache := ""
		if r.CacheHit {
			cache = "hit"
		}
		reason := cmpOr(r.Error, r.Reason)
		fmt.Fprintf(&b, "| %s | %s | %s | %s | $%.4f | %d | %s | %s |\n", mdCell(r.Name), mdCell(string(r.Status)), mdCell(string(r.Class())),
			dur(r.Seconds), r.CostUSD, r.ModelCalls, cache, mdCell(truncate(reason, 200)))
	}
	if s.ExpectedChecked > 0 {
		fmt.Fprintf(&b, "\n## Expected artifacts\n\n%d of %d verified ports with expected artifacts produced all of them.\n", s.ExpectedMet, s.ExpectedChecked)
		if len(s.MissingExpected) > 0 {
			fmt.Fprintf(&b, "\n| verified package | missing |\n|---|---|\n")
			for _, n := range sortedKeys(s.MissingExpected) {
				fmt.Fprintf(&b, "| %s | %s |\n", mdCell(n), mdCell(strings.Join(s.MissingExpected[n], " ")))
			}
		}
	}
	if len(s.Pending) > 0 {
		fmt.Fprintf(&b, "\n## Not run\n\n%s\n", escape.Markdown(strings.Join(s.Pending, ", ")))
	}
	return b.String()
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// mdCell is a value as one Markdown table cell: one line, with the characters that end
// a cell or start code, links or HTML escaped (names and reasons come from the builds).
func mdCell(s string) string { return escape.Markdown(s) }

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func dur(sec atesor.Seconds) string {
	return sec.Duration().Round(time.Second).String()
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// writeAtomic replaces path with data through [atomicfile], creating its directory.
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("batch: %w", err)
	}
	if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("batch: %w", err)
	}
	return nil
}
