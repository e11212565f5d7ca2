package buildlog_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/buildlog"
)

// corpusCase is one real build log of testdata/corpus: a package from Debian's archive
// built in the riscv64 sandbox with a failure injected the way it happens in the wild.
type corpusCase struct {
	Name     string `json:"name"`     // testdata/corpus/<name>.log
	Package  string `json:"package"`  // the Debian source package and its orig tarball
	Injected string `json:"injected"` // how the failure was made
	Command  string `json:"command"`  // the command whose output the log is
	First    string `json:"first"`    // the expected first line of the extracted error
	Category string `json:"category"` // the expected category
	text     string
}

func loadCorpus(tb testing.TB) []corpusCase {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "corpus.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var cases []corpusCase
	if err := json.Unmarshal(data, &cases); err != nil {
		tb.Fatalf("testdata/corpus.json: %v", err)
	}
	for i := range cases {
		b, err := os.ReadFile(filepath.Join("testdata", "corpus", cases[i].Name+".log"))
		if err != nil {
			tb.Fatal(err)
		}
		cases[i].text = string(b)
	}
	return cases
}

// TestCorpus checks the first line and category of the extracted error of every real
// log, and reports how many first lines the extraction before this package got right.
func TestCorpus(t *testing.T) {
	cases := loadCorpus(t)
	if len(cases) == 0 {
		t.Fatal("empty corpus")
	}
	oldRight, newRight, oldSameLine := 0, 0, 0
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			ev := buildlog.Extract(c.text)
			checkEvidence(t, ev)
			if ev.Diagnostic == c.First {
				newRight++
			} else {
				t.Errorf("first line\n got: %q\nwant: %q\ntext:\n%s", ev.Diagnostic, c.First, ev.Text)
			}
			if got := ev.Category(); got != atesor.ErrorCategory(c.Category) {
				t.Errorf("category %s, want %s", got, c.Category)
			}
			if first, _, _ := strings.Cut(strings.TrimSpace(oldExtract(c.text)), "\n"); first == c.First {
				oldRight++
			} else {
				t.Logf("old first line: %q", first)
			}
			if oldLine(c.text) == ev.Line-1 {
				oldSameLine++
			}
		})
	}
	t.Logf("right first line: old extraction %d/%d, new %d/%d", oldRight, len(cases), newRight, len(cases))
	t.Logf("old extraction started at the line of the new diagnostic (a CMake header counts): %d/%d", oldSameLine, len(cases))
}

// oldExtract is the extraction graph used before this package (graph/node_build.go at
// 0ca22e1), kept here only to measure the corpus against it.
func oldExtract(output string) string {
	lines := strings.Split(strings.TrimRight(output, "\n"), "\n")
	first := -1
	for i, l := range lines {
		if oldErrorLine.MatchString(l) && !strings.Contains(strings.ToLower(l), "warning:") {
			first = i
			break
		}
	}
	var out string
	if first < 0 {
		out = strings.Join(lines[max(0, len(lines)-40):], "\n")
	} else {
		out = strings.Join(lines[first:min(len(lines), first+40)], "\n")
		if first > 0 {
			out += "\n--- context before the error ---\n" + strings.Join(lines[max(0, first-5):first], "\n")
		}
	}
	if len(out) > 3000 {
		out = out[:3000]
	}
	if strings.TrimSpace(out) == "" {
		return "the command failed with no output"
	}
	return out
}

// oldLine is the index of the line the old extraction started at.
func oldLine(output string) int {
	lines := strings.Split(strings.TrimRight(output, "\n"), "\n")
	for i, l := range lines {
		if oldErrorLine.MatchString(l) && !strings.Contains(strings.ToLower(l), "warning:") {
			return i
		}
	}
	return max(0, len(lines)-40) // its tail
}

var oldErrorLine = regexp.MustCompile(`(?i)(\berror\b|fatal|undefined reference|not found|no such file|cannot find|unrecognized|unknown|denied|failed|\*\*\*)`)
