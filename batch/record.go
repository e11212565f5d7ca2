package batch

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// Record is the outcome of one package, one line of results.jsonl.
type Record struct {
	Name   string `json:"name"`
	Source string `json:"source"`
	// Origin is the Debian source a debian:NAME source resolved to.
	Origin       *atesor.DistroSource `json:"origin,omitempty"`
	Status       atesor.Status        `json:"status"`
	Verified     bool                 `json:"verified"`
	FailureClass atesor.FailureClass  `json:"failure_class,omitempty"`
	Reason       string               `json:"reason,omitempty"`
	// FirstError is the first line of the extracted error of a failed port's last
	// failure (what the build printed, not the escalation's wording), which the summary
	// groups failures by.
	FirstError string `json:"first_error,omitempty"`
	// Error is set when the port could not run at all (an unknown Debian name, a
	// download or sandbox failure); the status is then failed and the class setup.
	Error string `json:"error,omitempty"`
	// CacheHit is true when the recipe cache answered (no build ran).
	CacheHit   bool    `json:"cache_hit,omitempty"`
	Attempts   int     `json:"attempts"`
	ModelCalls int     `json:"model_calls"`
	CostUSD    float64 `json:"cost_usd"`
	// Seconds is the port's wall time.
	Seconds    atesor.Seconds `json:"seconds"`
	Shard      string         `json:"shard,omitempty"`
	StartedAt  time.Time      `json:"started_at"`
	FinishedAt time.Time      `json:"finished_at"`
	// Dir is the package's output directory, relative to the batch output directory.
	Dir string `json:"dir"`
	// BuildLog is the port's build log, relative to the batch output directory.
	BuildLog string `json:"build_log,omitempty"`
	// Artifacts are the sandbox paths of the port's primary artifacts.
	Artifacts []string `json:"artifacts,omitempty"`
	// Expected are the list's expected-artifact patterns; MissingExpected those a
	// verified port's artifacts do not match (a failed port is not judged).
	Expected        []string `json:"expected,omitempty"`
	MissingExpected []string `json:"missing_expected,omitempty"`
}

// ExpectedChecked reports whether the record's artifacts were compared with expected
// ones: the port verified and the list named some.
func (r Record) ExpectedChecked() bool { return r.Verified && len(r.Expected) > 0 }

// Class is the record's failure class for counting: "none" for a success.
func (r Record) Class() string {
	if r.FailureClass == atesor.FailureNone {
		if r.Status.Succeeded() {
			return "none"
		}
		if r.Status == atesor.StatusTestsFailing {
			return "tests"
		}
		return "unknown"
	}
	return string(r.FailureClass)
}

// File names in a batch output directory.
const (
	ResultsFile   = "results.jsonl"
	SummaryJSON   = "summary.json"
	SummaryMD     = "summary.md"
	DashboardHTML = "dashboard.html"
	LearnedDir    = "learned"
)

// ReadResults reads results.jsonl of dir and returns the last record of each name, by
// name. A missing file is no records. A truncated last line (a process killed while
// writing) is ignored.
func ReadResults(dir string) (map[string]Record, error) {
	f, err := os.Open(filepath.Join(dir, ResultsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]Record{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("batch: %w", err)
	}
	defer f.Close()
	out := map[string]Record{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	n := 0
	var bad []int
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var r Record
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.Name == "" {
			bad = append(bad, n)
			continue
		}
		out[r.Name] = r
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("batch: read %s: %w", f.Name(), err)
	}
	// Only the last line may be broken (an interrupted append).
	if len(bad) > 1 || len(bad) == 1 && bad[0] != n {
		return nil, fmt.Errorf("batch: %s: lines %v are not records; fix or remove them", f.Name(), bad)
	}
	return out, nil
}

// sortedRecords returns the records sorted by name.
func sortedRecords(m map[string]Record) []Record {
	out := make([]Record, 0, len(m))
	for _, r := range m {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Record) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func marshalLine(r Record) ([]byte, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("batch: %w", err)
	}
	return append(b, '\n'), nil
}
