package graph

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
)

// scriptedCase is a real package from Debian's archive (the upstream tarball, without
// Debian's patches) that fails offline without scripted repairs.
type scriptedCase struct {
	pkg, file string
	// rule is the scripted rule the case proves; the port must have used it.
	rule string
	// artifacts are primary artifact name prefixes a verified port must have.
	artifacts []string
	// class, when set, is the failure class of a port no rule repairs: it must escalate
	// with it, honestly, instead of verifying.
	class atesor.FailureClass
}

// TestE2EScriptedRepairs ports real Debian packages offline (no model) that fail
// without scripted repairs; each subtest names the rule it proves.
//
//	ATESOR_E2E=1 go test -p 1 -timeout 60m -run 'TestE2EScriptedRepairs/mpack' ./graph/
func TestE2EScriptedRepairs(t *testing.T) {
	tier.Long(t)
	cases := []scriptedCase{
		// dfu-util 0.11 needs libusb-1.0 through PKG_CHECK_MODULES, which the profile's
		// dependency map does not know; configure stops with its own message ("Required
		// libusb-1.0 >= 1.0.0 not installed") and config.log names the module. Proves
		// missing-package (pkg-config module -> libusb-1.0-0-dev through the Contents
		// index). Measured: failed offline before; verified after one scripted fix (twice
		// in a row once the copied tree kept its archive times: before, make re-ran
		// aclocal-1.16 in some runs; 11-14 min each under a load average of 20-35).
		{pkg: "dfu-util", file: "dfu-util_0.11.orig.tar.gz", rule: "missing-package", artifacts: []string{"dfu-util"}},
		// mpack 1.6 (2003) has an autoconf 2.13 configure whose compiler test is
		// "main(){return(0);}": GCC 14 rejects the implicit int, so configure says the C
		// compiler cannot create executables. Proves gcc14-permissive (the flags through
		// configure's CFLAGS). Measured: three fixes, one per GCC 14 error class as it
		// showed: implicit-int (configure, from config.log), implicit-function-declaration,
		// return-mismatch; verified in 7 min under a load average of 30.
		{pkg: "mpack", file: "mpack_1.6.orig.tar.gz", rule: "gcc14-permissive", artifacts: []string{"mpack", "munpack"}},
		// lrzsz 0.12.21rc (1998) ships a 1996 config.guess, which the heuristic plan's
		// config-scripts phase replaces; then GCC 14 rejects its old C. Proves
		// gcc14-permissive on a second real package. Measured: verified offline after two
		// fixes (implicit-int in configure, implicit-function-declaration in make), 22 min
		// under a load average of 30; make check passed.
		{pkg: "lrzsz", file: "lrzsz_0.12.21rc.orig.tar.gz", rule: "gcc14-permissive", artifacts: []string{"lrz", "lsz"}},
		// icmpinfo 1.11 is 1990s C that redefines struct ip against glibc's
		// <netinet/ip.h>: a real source error no rule covers, so the offline port
		// escalates with class build and that error.
		{pkg: "icmpinfo", file: "icmpinfo_1.11.orig.tar.gz", class: atesor.FailureBuild},
	}
	for _, c := range cases {
		t.Run(c.pkg, func(t *testing.T) { runScriptedCase(t, c) })
	}
}

func runScriptedCase(t *testing.T, c scriptedCase) {
	e2e(t)
	e := newE2EEnv(t)
	src := debiantest.SourceTarball(t, c.pkg, c.file)
	start := time.Now()
	res, err := e.pipeline(t, nil).Run(context.Background(), atesor.Request{Source: src, TestTimeout: 3 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	rep := e.report(t, res.Package)
	var rules []string
	for _, f := range rep.Fixes {
		t.Logf("fix %d by %s/%s (%s): %s -> built %t", f.Attempt, f.Source, f.Rule, f.Error, f.Strategy, f.Success)
		if f.Source == atesor.FixSourceScripted {
			rules = append(rules, f.Rule)
		}
	}
	t.Logf("%s: %s in %s; fixes by source %v, by rule %v", c.pkg, res.Status, time.Since(start).Round(time.Second), rep.FixesBySource, rep.FixesByRule)
	if !res.Verified {
		if b, err := os.ReadFile(filepath.Join(e.out, res.Package+"_build.log")); err == nil {
			t.Logf("end of the build log:\n%s", excerpt.Tail(string(b), 4000))
		}
	}
	if c.class != "" {
		if res.Verified || res.FailureClass != c.class {
			t.Fatalf("%s: status %s class %s (%s), want an escalation with class %s", c.pkg, res.Status, res.FailureClass, res.Reason, c.class)
		}
		t.Logf("escalated honestly: %s", res.Reason)
		return
	}
	checkVerified(t, e, res, c.artifacts...)
	if !slices.Contains(rules, c.rule) {
		t.Errorf("%s verified without the %s rule (scripted rules used: %v)", c.pkg, c.rule, rules)
	}
	if rep.LLM.Calls != 0 {
		t.Errorf("an offline port made %d model calls", rep.LLM.Calls)
	}
}
