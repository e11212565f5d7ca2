package graph

import (
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EScriptedGoXSys ports Debian's golang-github-grpc-ecosystem-go-grpc-prometheus
// 1.2.0+git20191002 offline in module mode. Its go.mod pins golang.org/x/sys
// v0.0.0-20180830151530-49385e6e1522, from before x/sys's linux/riscv64 port, so
// x/sys/unix stops with "undefined: _CPU_SETSIZE", "undefined: Cmsghdr". Without
// scripted repairs the port escalates there (with the rules before go-xsys-riscv64, the
// held-back run at bf8508b ended in an error loop: go-portable-tags' build tags change
// nothing in x/sys); with them
// go.mod requires golang.org/x/sys v0.1.0, the examples verify, the tests pass and the
// recipe replays it.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedGoXSys$' ./graph/
func TestE2EScriptedGoXSys(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "golang-github-grpc-ecosystem-go-grpc-prometheus",
		file: "golang-github-grpc-ecosystem-go-grpc-prometheus_1.2.0+git20191002.6af20e3.orig.tar.gz", rule: "go-xsys-riscv64",
		before: "undefined: _CPU_SETSIZE", analysis: "from before its linux/riscv64 port",
		recipe: "go mod edit -require=golang.org/x/sys@v0.1.0", artifact: "server",
		origin: &atesor.DistroSource{Distro: "debian", Package: "golang-github-grpc-ecosystem-go-grpc-prometheus",
			Version: "1.2.0+git20191002.6af20e3-5", Suite: "trixie", Component: "main"}})
}
