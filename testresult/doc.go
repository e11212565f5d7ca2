// Package testresult reads what a package's test framework printed and turns it into
// counts: tests ran, passed, failed and skipped, and the names of the failed tests.
//
// It knows ctest (its per-test lines and its summary), automake's test driver (the
// console summary and test-suite.log: TOTAL, PASS, FAIL, SKIP, XFAIL, XPASS, ERROR),
// meson test, go test -json (and go test's plain output), cargo test's "test result:"
// lines and TAP (raw streams and prove's summary). Output no parser recognises is
// reported as such: the verdict is then the exit code alone, and the result says so.
//
// Zero tests is never a pass: output that shows the framework ran no test ("No tests
// were found!!!", "[no test files]", "running 0 tests", "No tests defined.", make's
// "Nothing to be done") gives NoTests, so the caller can try the next test command the
// build system offers ([CMakeTestOptions], [MakeTestTargets]).
//
// Tests that died by a signal are listed in Signalled, so a caller running under an
// emulator can rerun them once ([RerunCommand]) and count a failure the rerun clears
// apart from real failures.
//
// The package imports only the standard library and the root package.
package testresult
