package testresult

import (
	"bufio"
	"encoding/json"
	"regexp"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
)

// goEvent is one line of go test -json (test2json).
type goEvent struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// goSignal matches a Go test binary's crash report.
var goSignal = regexp.MustCompile(`signal (SIGSEGV|SIGILL|SIGBUS|SIGABRT)|unexpected signal|uncaught target signal`)

// parseGoJSON reads go test -json. Each test and subtest counts once by its final
// action; a package that fails with no failed test of its own (a build failure, a
// crash, TestMain) counts as one failure named after the package.
func parseGoJSON(out string) (Result, bool) {
	type key struct{ pkg, test string }
	final := map[key]string{}
	var order []key
	pkgFailed := map[string]bool{}
	pkgCrashed := map[string]bool{}
	var pkgOrder []string
	seenPkg := map[string]bool{}
	events := 0
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "{") || !strings.Contains(line, `"Action"`) {
			continue
		}
		var ev goEvent
		if json.Unmarshal([]byte(line), &ev) != nil || ev.Action == "" {
			continue
		}
		events++
		if ev.Package != "" && !seenPkg[ev.Package] {
			seenPkg[ev.Package] = true
			pkgOrder = append(pkgOrder, ev.Package)
		}
		if ev.Action == "output" {
			if goSignal.MatchString(ev.Output) {
				pkgCrashed[ev.Package] = true
			}
			continue
		}
		if ev.Test == "" {
			switch ev.Action {
			case "fail", "build-fail":
				pkgFailed[ev.Package] = true
			}
			continue
		}
		switch ev.Action {
		case "pass", "fail", "skip":
			k := key{ev.Package, ev.Test}
			if _, ok := final[k]; !ok {
				order = append(order, k)
			}
			final[k] = ev.Action
		}
	}
	if events == 0 {
		return Result{}, false
	}
	c := &atesor.TestCounts{Framework: GoTest}
	var r Result
	failedIn := map[string]bool{}
	for _, k := range order {
		switch final[k] {
		case "pass":
			c.Passed++
		case "skip":
			c.Skipped++
		case "fail":
			c.Failed++
			failedIn[k.pkg] = true
			c.FailedTests = append(c.FailedTests, k.pkg+"."+k.test)
		}
	}
	for _, p := range pkgOrder {
		if pkgFailed[p] && !failedIn[p] {
			c.Failed++
			c.FailedTests = append(c.FailedTests, p)
		}
		if pkgFailed[p] && pkgCrashed[p] {
			r.Signalled = append(r.Signalled, p)
		}
	}
	c.Ran = c.Passed + c.Failed
	r.Counts = c
	if c.Ran == 0 {
		r.Note = "go test: no test ran"
	}
	return r, true
}

var (
	goPlainTest = regexp.MustCompile(`(?m)^\s*--- (PASS|FAIL|SKIP): (\S+)`)
	goPlainPkg  = regexp.MustCompile(`(?m)^(ok|FAIL|\?)[ \t]+(\S+)[ \t]*(.*)$`)
)

// parseGoPlain reads go test's plain output. With -v every test has a --- line;
// without it only failures do, so the counts are those of the --- lines and the
// packages that failed without one. A run whose packages all have no test files is
// NoTests.
func parseGoPlain(out string) (Result, bool) {
	pkgs := goPlainPkg.FindAllStringSubmatch(out, -1)
	tests := goPlainTest.FindAllStringSubmatch(out, -1)
	if len(pkgs) == 0 {
		return Result{}, false
	}
	c := &atesor.TestCounts{Framework: GoTest}
	var r Result
	failedIn := map[string]bool{}
	for _, m := range tests {
		switch m[1] {
		case "PASS":
			c.Passed++
		case "SKIP":
			c.Skipped++
		case "FAIL":
			c.Failed++
			c.FailedTests = append(c.FailedTests, m[2])
			failedIn[m[2]] = true
		}
	}
	noFiles, okPkgs := 0, 0
	idx := goPlainPkg.FindAllStringIndex(out, -1)
	for i, m := range pkgs {
		from := 0
		if i > 0 {
			from = idx[i-1][1]
		}
		block := out[from:idx[i][0]] // what the package printed before its result line
		switch {
		case m[1] == "?" && strings.Contains(m[3], "[no test files]"):
			noFiles++
		case m[1] == "ok":
			okPkgs++
			if len(tests) == 0 && !strings.Contains(m[3], "[no tests to run]") {
				c.Passed++ // without -v, a package that passed is all that is known
			}
		case m[1] == "FAIL" && m[2] != "":
			if len(c.FailedTests) == 0 || strings.Contains(m[3], "[build failed]") || strings.Contains(m[3], "[setup failed]") {
				c.Failed++
				c.FailedTests = append(c.FailedTests, m[2])
			}
			if goSignal.MatchString(block) {
				r.Signalled = append(r.Signalled, m[2])
			}
		}
	}
	if noFiles+okPkgs == 0 && c.Failed == 0 && len(tests) == 0 {
		return Result{}, false
	}
	c.Ran = c.Passed + c.Failed
	r.Counts = c
	switch {
	case c.Ran == 0:
		r.Note = "go test: no test files"
	case len(tests) == 0:
		r.Note = "go test without -v or -json: packages are counted, not tests"
	}
	return r, true
}
