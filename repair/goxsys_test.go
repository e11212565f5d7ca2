package repair

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go/validate"
)

// TestGoXSysRule runs the rule on the real go build output of Debian's
// golang-github-grpc-ecosystem-go-grpc-prometheus 1.2.0 (its go.mod pins
// golang.org/x/sys v0.0.0-20180830151530-49385e6e1522, from before x/sys's riscv64
// port: "undefined: _CPU_SETSIZE", "undefined: Cmsghdr").
func TestGoXSysRule(t *testing.T) {
	const build = "GOTOOLCHAIN=auto go build -buildvcs=false ./... && GOTOOLCHAIN=auto go test -buildvcs=false -c -o bin/ ./..."
	real := readLog(t, "go-xsys-grpc-prometheus.log")
	tests := []struct {
		name, log, plan string
		want            []string // the build phase's commands
		none            string
	}{
		{name: "grpc-prometheus: x/sys from 2018", log: real, plan: build,
			want: []string{goXSysRequire, build}},
		{name: "already required", log: real, plan: build, none: "already requires",
			want: []string{goXSysRequire, build}},
		{name: "an x/sys with the port: no fix", plan: build, none: "has the linux/riscv64 port",
			log: "/root/go/pkg/mod/golang.org/x/sys@v0.20.0/unix/x.go:1:2: undefined: Foo\n"},
		{name: "a GOPATH build: no fix", log: real, plan: "export GO111MODULE=off GOPATH=/x && go build ./...", none: "no module-mode go command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := buildFailure(t, tt.log, tt.plan)
			if claims := Claims(f, nil); !slices.Contains(claims, "go-xsys-riscv64") {
				t.Fatalf("claims %v", claims)
			}
			plan := defaultPlan(tt.plan)
			if tt.none == "already requires" {
				plan.Phases[1].Commands = tt.want
			}
			fix, why := makeGoXSys(context.Background(), f, Env{Plan: plan})
			if !wantFix(t, fix, why, tt.none) {
				return
			}
			if got := fix.Plan.Phases[1].Commands; !slices.Equal(got, tt.want) {
				t.Errorf("build phase\n got %q\nwant %q", got, tt.want)
			}
			if plan.Phases[1].Commands[0] != tt.plan {
				t.Error("the rule changed the caller's plan in place")
			}
			if !strings.Contains(fix.Analysis, "v0.0.0-20180830151530-49385e6e1522") || !strings.Contains(fix.Analysis, "undefined: _CPU_SETSIZE") {
				t.Errorf("analysis %q", fix.Analysis)
			}
			if err := validate.BuildPlan(fix.Plan); err != nil {
				t.Errorf("the fixed plan does not validate: %v", err)
			}
		})
	}
	// go-portable-tags, after it, would add build tags that change nothing in x/sys.
	if r := Rules(); slices.IndexFunc(r, func(x Rule) bool { return x.Name == "go-xsys-riscv64" }) >
		slices.IndexFunc(r, func(x Rule) bool { return x.Name == "go-portable-tags" }) {
		t.Error("go-xsys-riscv64 comes after go-portable-tags")
	}
}
