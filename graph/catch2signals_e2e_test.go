package graph

import (
	"testing"

	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EScriptedCatch2Signals ports Debian's opentracing-cpp 1.6.0 offline. Its tests
// include the vendored Catch v2.0.1 single header
// 3rd_party/include/opentracing/catch2/catch.hpp, whose fatal-signal handler sizes a
// static array with SIGSTKSZ, a sysconf() call since glibc 2.34: without scripted
// repairs the port escalates at "size of array ‘altStackMem’ is not an integral
// constant-expression"; with them catch2-sigstksz defines CATCH_CONFIG_NO_POSIX_SIGNALS
// through CMAKE_CXX_FLAGS_RELEASE, the port verifies (ctest 11 of 11 passing) and the
// recipe replays it. Measured: 1202 s in all (before 2 min, verified port 11 min 29 s,
// replay 6 min 31 s, reproduced) beside other ports on two cores.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedCatch2Signals$' ./graph/
func TestE2EScriptedCatch2Signals(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "opentracing-cpp", file: "opentracing-cpp_1.6.0.orig.tar.xz", rule: "catch2-sigstksz",
		before:   "size of array ‘altStackMem’ is not an integral constant-expression",
		analysis: "3rd_party/include/opentracing/catch2/catch.hpp is Catch2 2.0.1's single header",
		recipe:   "-DCMAKE_CXX_FLAGS_RELEASE='-O3 -DNDEBUG -DCATCH_CONFIG_NO_POSIX_SIGNALS'", artifact: "libopentracing.so.1.6.0", tests: 11})
}
