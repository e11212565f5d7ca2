package repair

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
	"golang.org/x/mod/semver"
)

// golang.org/x/sys/unix defines each GOOS/GOARCH's constants and types in generated
// files; a release from before its linux/riscv64 port has none for riscv64, so every
// file that uses them stops with "undefined: Cmsghdr", "undefined: _CPU_SETSIZE" in the
// module cache. Modules pinned years ago carry such a release. The porter's fix is the
// one every riscv64 port of a Go module takes: require a golang.org/x/sys with the
// port, which the module's go.sum then records.

// goXSysUndefined is the go command's compile error in an x/sys/unix of the module
// cache, with its version.
var goXSysUndefined = re(`(?m)\S*/pkg/mod/golang\.org/x/sys@(v[0-9][^/\s]*)/unix/\S+\.go:\d+:\d+: undefined: \S+`)

// goXSysRISCV64 is the golang.org/x/sys release the fix requires: the first tagged
// one (2022), long after its linux/riscv64 port, and old enough that its go.mod asks
// for no newer Go than any module with a go.sum does today (go 1.17).
const goXSysRISCV64 = "v0.1.0"

func goXSysRule() Rule {
	return Rule{
		Name: "go-xsys-riscv64",
		Doc: "a Go module pinned to a golang.org/x/sys from before its linux/riscv64 port (undefined: Cmsghdr in x/sys/unix of the module cache): " +
			"require golang.org/x/sys@" + goXSysRISCV64 + " in go.mod (go mod edit, go mod tidy) before the build",
		Categories: []atesor.ErrorCategory{atesor.CategoryCompilation, atesor.CategoryUnknown, atesor.CategoryArchitecture},
		Signatures: []*regexp.Regexp{goXSysUndefined},
		Make:       makeGoXSys,
	}
}

func makeGoXSys(_ context.Context, f Failure, env Env) (*Fix, string) {
	if env.Plan == nil {
		return nil, "no build plan"
	}
	m := goXSysUndefined.FindStringSubmatch(f.text() + "\n" + f.Message)
	if m == nil {
		return nil, "no undefined name in golang.org/x/sys/unix of the module cache"
	}
	old := m[1]
	if semver.IsValid(old) && semver.Compare(old, goXSysRISCV64) >= 0 {
		return nil, "golang.org/x/sys " + old + " has the linux/riscv64 port: its undefined names are another failure"
	}
	get := goXSysRequire
	plan := *env.Plan
	plan.Phases = slices.Clone(plan.Phases)
	for i, ph := range plan.Phases {
		if slices.Contains(ph.Commands, get) {
			return nil, "the plan already requires golang.org/x/sys@" + goXSysRISCV64
		}
		j := slices.IndexFunc(ph.Commands, func(c string) bool { return goCommand.MatchString(c) && !strings.Contains(c, "GO111MODULE=off") })
		if j < 0 {
			continue
		}
		plan.Phases[i].Commands = slices.Insert(slices.Clone(ph.Commands), j, get)
		return &Fix{
			Analysis: fmt.Sprintf("the module requires golang.org/x/sys %s, from before its linux/riscv64 port: x/sys/unix has no riscv64 definitions (%s); "+
				"the port requires golang.org/x/sys %s, which go.mod and go.sum then record.", old, m[0], goXSysRISCV64),
			Strategy: "require golang.org/x/sys@" + goXSysRISCV64 + " in go.mod before the build",
			Plan:     &plan,
		}, ""
	}
	return nil, "no module-mode go command in the plan"
}

// goXSysRequire requires the x/sys release through go.mod (go get of a remote module
// is refused by validate's no-remote-code rule; go mod tidy then fetches it as any
// build of the module fetches its requirements, and records its go.sum lines).
const goXSysRequire = "GOTOOLCHAIN=auto go mod edit -require=golang.org/x/sys@" + goXSysRISCV64 + " && GOTOOLCHAIN=auto go mod tidy"
