package testresult

import (
	"regexp"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
)

var (
	// cargoResult is the last line of one test binary's run.
	cargoResult = regexp.MustCompile(`(?m)^test result: (ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored; (\d+) measured; (\d+) filtered out`)
	// cargoFailed is one failed test: "test path::name ... FAILED".
	cargoFailed = regexp.MustCompile(`(?m)^test (.+?) \.\.\. FAILED\s*$`)
	// cargoCrash is a test binary that died: "error: test failed, to rerun pass `--lib`"
	// follows "process didn't exit successfully: `path` (signal: 11, SIGSEGV: ...)".
	cargoCrash = regexp.MustCompile("(?m)process didn't exit successfully: `([^`]+)` \\((signal: \\d+[^)]*|exit status: \\d+)\\)")
	// cargoRunning is "running 3 tests" at the start of a binary's run.
	cargoRunning = regexp.MustCompile(`(?m)^running (\d+) tests?$`)
)

// parseCargo reads cargo test (libtest) output: the "test result:" line of each test
// binary, added up, and the failed tests' names. A test binary killed by a signal
// prints no result line; it counts as one failure named after the binary, less the
// tests it had already reported.
func parseCargo(out string) (Result, bool) {
	results := cargoResult.FindAllStringSubmatch(out, -1)
	crashes := cargoCrash.FindAllStringSubmatch(out, -1)
	if len(results) == 0 && (len(crashes) == 0 || len(cargoRunning.FindAllString(out, -1)) == 0) {
		return Result{}, false
	}
	c := &atesor.TestCounts{Framework: Cargo}
	var r Result
	for _, m := range results {
		c.Passed += atoi(m[2])
		c.Failed += atoi(m[3])
		c.Skipped += atoi(m[4])
	}
	for _, m := range cargoFailed.FindAllStringSubmatch(out, -1) {
		c.FailedTests = append(c.FailedTests, m[1])
	}
	for _, m := range crashes {
		if !strings.HasPrefix(m[2], "signal") {
			continue // a failed binary with a result line, already counted
		}
		c.Failed++
		name := binaryName(m[1])
		c.FailedTests = append(c.FailedTests, name)
		r.Signalled = append(r.Signalled, name)
	}
	c.Ran = c.Passed + c.Failed
	c.FailedTests = uniq(c.FailedTests)
	r.Counts = c
	if c.Ran == 0 {
		r.Note = "cargo test: running 0 tests"
	}
	return r, true
}

// binaryName is the test binary of a cargo command line, without its directory and
// the hash cargo appends ("/target/release/deps/foo-0123abcd --flags" is "foo").
func binaryName(cmd string) string {
	f := strings.Fields(cmd)
	if len(f) == 0 {
		return cmd
	}
	b := f[0]
	if i := strings.LastIndex(b, "/"); i >= 0 {
		b = b[i+1:]
	}
	if i := strings.LastIndex(b, "-"); i > 0 && len(b)-i == 17 {
		b = b[:i]
	}
	return b
}
