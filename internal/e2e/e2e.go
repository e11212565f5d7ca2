// Package e2e puts a test in its tier. Tests that need the real riscv64 sandbox, the
// Debian archive or host services (bwrap, slirp4netns, binfmt_misc, network namespaces)
// are end-to-end tests: they run only when ATESOR_E2E=1, and the slow ones only when
// ATESOR_E2E_LONG=1 as well. Each such test says its tier by calling [Short] or [Long]
// (directly or through a helper of its package), so renaming a test cannot move it into
// another tier, and no list of test names has to be kept anywhere else.
//
// A test that calls one of them has "E2E" in its name, and a test with "E2E" in its
// name calls one of them: this package's own test checks both across the module, so
// `go test -run E2E` selects exactly the end-to-end tests.
package e2e

import (
	"os"
	"testing"
)

// The environment variables that choose the tiers.
const (
	// EnvShort set to 1 runs the short end-to-end tier.
	EnvShort = "ATESOR_E2E"
	// EnvLong set to 1 (with EnvShort) runs the long tier too.
	EnvLong = "ATESOR_E2E_LONG"
)

// Short skips tb unless the end-to-end tests were asked for (ATESOR_E2E=1). It is the
// tier of tests that each take a few minutes at most on two cores; CI runs it.
func Short(tb testing.TB) {
	tb.Helper()
	if os.Getenv(EnvShort) != "1" {
		tb.Skipf("end-to-end test: set %s=1 to run it (it needs the real riscv64 sandbox or the Debian archive)", EnvShort)
	}
}

// Long skips tb unless the long end-to-end tier was asked for (ATESOR_E2E=1 and
// ATESOR_E2E_LONG=1): tests that build whole packages several times over and take
// longer than a few minutes each.
func Long(tb testing.TB) {
	tb.Helper()
	Short(tb)
	if os.Getenv(EnvLong) != "1" {
		tb.Skipf("long end-to-end test: set %s=1 and %s=1 to run it", EnvShort, EnvLong)
	}
}

// Root skips tb unless it runs as root, which the root-filesystem sandbox needs (it
// mounts an overlay).
func Root(tb testing.TB) {
	tb.Helper()
	if os.Geteuid() != 0 {
		tb.Skip("the root-filesystem sandbox needs root")
	}
}

// Enabled reports whether the end-to-end tests were asked for, for the rare test that
// must fail instead of skip when a tool it needs is missing in an end-to-end run.
func Enabled() bool { return os.Getenv(EnvShort) == "1" }
