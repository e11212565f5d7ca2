package repair

import (
	"strings"
	"testing"
)

// TestGCC14ConfigureLastCheck: jnettop's configure says localhost does not resolve; its
// config.log shows the check's program failing on GCC 14's implicit declaration of
// exit(). Only the last check before the error counts: others fail on purpose.
func TestGCC14ConfigureLastCheck(t *testing.T) {
	conf := readLog(t, "config-jnettop.log")
	build := "autoreconf -fi && ./configure && make -j$(nproc)"
	t.Run("jnettop: the failed check is old C", func(t *testing.T) {
		fix, notes := proposeOnBuild(t, "gcc14-configure-check-jnettop.log", defaultPlan(build), memTree{"configure.ac": "", "config.log": conf})
		wantPlanFix(t, "gcc14-permissive", fix, notes, "/workspace/jnettop", "apt-get update && apt-get install -y build-essential",
			"autoreconf -fi && CFLAGS='-g -O2 -Wno-error=implicit-function-declaration' ./configure && make -j$(nproc)")
	})
	t.Run("an earlier check's error does not count", func(t *testing.T) {
		i := strings.Index(conf, "checking if \"localhost\" resolves")
		if i < 0 {
			t.Fatal("config.log lacks the check")
		}
		// The last check's section without the compiler's words.
		end := strings.Index(conf[i:], "configure: failed program was:")
		trimmed := conf[:i] + "checking if \"localhost\" resolves\nconfigure:5331: $? = 1\n" + conf[i+end:]
		if !strings.Contains(conf[:i], "implicit") {
			t.Skip("config.log has no earlier GCC 14 error to leave out")
		}
		fix, notes := proposeOnBuild(t, "gcc14-configure-check-jnettop.log", defaultPlan(build), memTree{"configure.ac": "", "config.log": trimmed})
		wantNoFix(t, "gcc14-permissive", fix, notes, "no GCC 14 error in the output or config.log")
	})
}
