// Package pkgtest runs a ported package's own test suite in the sandbox and judges what
// it means for the port.
//
// Running: the test commands (the ones the scout took out of the build plan, else the
// build system's default, [DefaultCommands]) run with no network and within one time
// bound. Their output is counted by package testresult's parsers. A command that runs
// no test is not a pass: the next way the build system offers is tried (a CMake
// reconfigure that switches gated tests on, the Makefile's check or test target).
// Tests that died by a signal are rerun once, since under emulation a crash may be the
// emulator's; one the rerun passes, or whose fault the sandbox's rules call the
// emulator's, is set apart from the failures. A Go suite runs with a per-package
// timeout of half the bound and falls back to -short in the other half.
//
// Judging: failing tests after fixes that changed the package's code mark the port
// tests_failing ([Judge]); after fixes to build files only, it stays verified and the
// verdict line names the failures. [Evidence] is the recipe's paragraph on the tests.
//
// It is a package of its own because none of this needs the pipeline: it takes the
// sandbox's Exec, a function for progress events and a [Suite], and returns the
// result that the pipeline stores in the state.
package pkgtest
