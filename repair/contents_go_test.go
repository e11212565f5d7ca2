package repair

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// TestGoPackageProviders: a GOPATH build's missing import is looked up by the directory
// Debian's golang-*-dev packages install its sources in, and missing-package installs
// the package. Test files and directories above a package's files name nothing.
func TestGoPackageProviders(t *testing.T) {
	contents := strings.Join([]string{
		"usr/share/gocode/src/github.com/onsi/ginkgo/ginkgo_dsl.go golang/golang-github-onsi-ginkgo-dev",
		"usr/share/gocode/src/github.com/onsi/ginkgo/ginkgo_dsl_test.go golang/golang-github-onsi-ginkgo-dev",
		"usr/share/gocode/src/github.com/onsi/gomega/gomega_dsl.go golang/golang-github-onsi-gomega-dev",
		"usr/share/gocode/src/github.com/onsi/gomega/internal/x_test.go golang/golang-github-onsi-gomega-dev",
		"usr/share/gocode/src/README.go golang/golang-odd-dev",
		"usr/include/zlib.h libdevel/zlib1g-dev",
	}, "\n") + "\n"
	c, err := ParseContents(strings.NewReader(contents), "riscv64-linux-gnu")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]string{
		"github.com/onsi/ginkgo": {"golang-github-onsi-ginkgo-dev"}, "github.com/onsi/gomega": {"golang-github-onsi-gomega-dev"},
		"github.com/onsi/gomega/internal": nil, "github.com/onsi": nil, "": nil,
	} {
		if d := cmp.Diff(want, c.Providers(KindGoPackage, name)); d != "" {
			t.Errorf("%q (-want +got):\n%s", name, d)
		}
	}
	// The real ending of logrus-prefixed-formatter's test build once go-exclude left
	// examples/ out (its Build-Depends have neither package; the GOPATH mode's words).
	out := "# github.com/x-cray/logrus-prefixed-formatter_test\n" +
		"formatter_test.go:7:2: cannot find package \"github.com/onsi/ginkgo\" in any of:\n" +
		"\t/usr/lib/go-1.24/src/github.com/onsi/ginkgo (from $GOROOT)\n" +
		"\t/workspace/p/.gopath/src/github.com/onsi/ginkgo (from $GOPATH)\n" +
		"\t/usr/share/gocode/src/github.com/onsi/ginkgo\n" +
		"formatter_test.go:8:2: cannot find package \"github.com/onsi/gomega\" in any of:\n"
	if d := cmp.Diff([]Missing{{KindGoPackage, "github.com/onsi/ginkgo"}, {KindGoPackage, "github.com/onsi/gomega"}}, FindMissing(out)); d != "" {
		t.Errorf("FindMissing (-want +got):\n%s", d)
	}
	f := Failure{Category: atesor.ClassifyError(out), Message: out, Phase: "build"}
	fix, why := makeMissingPackage(t.Context(), f, Env{Platform: debian(t), Packages: c})
	if fix == nil {
		t.Fatalf("no fix: %s", why)
	}
	if len(fix.Actions) != 1 || !strings.HasSuffix(fix.Actions[0].Command, " golang-github-onsi-ginkgo-dev golang-github-onsi-gomega-dev") {
		t.Errorf("actions %+v", fix.Actions)
	}
}

// TestGoPackageFromSources: with no Contents index, the distribution's source index
// names the package (gomega's is golang-gomega-dev, no name rule gives it).
func TestGoPackageFromSources(t *testing.T) {
	out := "formatter_test.go:8:2: cannot find package \"github.com/onsi/gomega\" in any of:\n"
	f := Failure{Category: atesor.ClassifyError(out), Message: out, Phase: "build"}
	env := Env{Platform: debian(t), GoPackage: func(_ context.Context, p string) (string, string, error) {
		if p == "github.com/onsi/gomega" {
			return "golang-gomega-dev", "golang-gomega", nil
		}
		return "", "", nil
	}}
	fix, why := makeMissingPackage(t.Context(), f, env)
	if fix == nil {
		t.Fatalf("no fix: %s", why)
	}
	if len(fix.Actions) != 1 || !strings.HasSuffix(fix.Actions[0].Command, " golang-gomega-dev") {
		t.Errorf("actions %+v", fix.Actions)
	}
}
