package knowledge

import (
	"go/build/constraint"
	"path"
	"slices"
	"strings"
)

// Go build constraints as a linux/riscv64 build with the gc toolchain and cgo sees them.

// goKnownOS and goKnownArch are the GOOS and GOARCH values the go command knows, as file
// name suffixes and build tags.
var (
	goKnownOS = setOf("aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios",
		"js", "linux", "nacl", "netbsd", "openbsd", "plan9", "solaris", "wasip1", "windows", "zos")
	goKnownArch = setOf("386", "amd64", "amd64p32", "arm", "armbe", "arm64", "arm64be", "loong64",
		"mips", "mipsle", "mips64", "mips64le", "mips64p32", "mips64p32le", "ppc", "ppc64", "ppc64le",
		"riscv", "riscv64", "s390", "s390x", "sparc", "sparc64", "wasm")
	// goStdTags are the other tags the toolchain itself sets or knows.
	goStdTags = setOf("unix", "cgo", "gc", "gccgo", "race", "msan", "asan", "ignore", "boringcrypto",
		"goexperiment", "tools", "generate")
	// goRiscv64Tags are the tags a native linux/riscv64 gc build with cgo satisfies.
	goRiscv64Tags = setOf("linux", "unix", "riscv64", "gc", "cgo")
)

func setOf(v ...string) map[string]bool {
	m := make(map[string]bool, len(v))
	for _, s := range v {
		m[s] = true
	}
	return m
}

// goHeaderConstraint returns the //go:build (or // +build) expression of a Go or
// assembly source, nil when it has none or it does not parse. Only the comment lines
// before the first other line count, as for the go command.
func goHeaderConstraint(src []byte) constraint.Expr {
	var plus []constraint.Expr
	for _, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "":
			continue
		case constraint.IsGoBuild(line):
			if x, err := constraint.Parse(line); err == nil {
				return x
			}
			return nil
		case constraint.IsPlusBuild(line):
			if x, err := constraint.Parse(line); err == nil {
				plus = append(plus, x)
			}
			continue
		case strings.HasPrefix(line, "//"):
			continue
		}
		break
	}
	if len(plus) == 0 {
		return nil
	}
	x := plus[0]
	for _, y := range plus[1:] {
		x = &constraint.AndExpr{X: x, Y: y}
	}
	return x
}

// goFileBuildsOnRiscv64 reports whether a Go source file is part of a linux/riscv64
// build: its name's _GOOS/_GOARCH suffixes and its build constraint allow it.
func goFileBuildsOnRiscv64(name string, src []byte) bool {
	stem := strings.TrimSuffix(path.Base(name), path.Ext(name))
	stem = strings.TrimSuffix(stem, "_test")
	parts := strings.Split(stem, "_")
	if n := len(parts); n >= 2 {
		last := parts[n-1]
		switch {
		case goKnownArch[last]:
			if last != "riscv64" {
				return false
			}
			if n >= 3 && goKnownOS[parts[n-2]] && parts[n-2] != "linux" {
				return false
			}
		case goKnownOS[last] && last != "linux":
			return false
		}
	}
	x := goHeaderConstraint(src)
	if x == nil {
		return true
	}
	return x.Eval(func(tag string) bool {
		return goRiscv64Tags[tag] || strings.HasPrefix(tag, "go1.")
	})
}

// goArchSpecific reports whether a source file is tied to architectures: an
// architecture file name suffix, an assembly file, or a build constraint naming one.
func goArchSpecific(name string, x constraint.Expr) bool {
	if strings.HasSuffix(name, ".s") {
		return true
	}
	stem := strings.TrimSuffix(path.Base(name), path.Ext(name))
	if i := strings.LastIndexByte(stem, '_'); i >= 0 && goKnownArch[stem[i+1:]] {
		return true
	}
	found := false
	if x != nil {
		x.Eval(func(tag string) bool {
			if goKnownArch[tag] {
				found = true
			}
			return false
		})
	}
	return found
}

// goCustomTags returns the tags of a build constraint that are neither GOOS, GOARCH,
// toolchain nor Go version tags: the module's own switches (purego, noasm, appengine).
func goCustomTags(x constraint.Expr) []string {
	var tags []string
	if x == nil {
		return nil
	}
	x.Eval(func(tag string) bool {
		if !goKnownOS[tag] && !goKnownArch[tag] && !goStdTags[tag] && !strings.HasPrefix(tag, "go1.") &&
			!strings.HasPrefix(tag, "goexperiment.") && !slices.Contains(tags, tag) {
			tags = append(tags, tag)
		}
		return false
	})
	return tags
}

// goPortableSwitches returns the custom tags of an architecture-specific file's
// constraint that switch to portable code: setting the tag drops the file from an
// amd64 or arm64 build that had it (//go:build !purego on sum_amd64.s), or brings a
// file into a riscv64 build that lacked it (//go:build !amd64 || purego).
func goPortableSwitches(name string, x constraint.Expr) []string {
	if x == nil || !goArchSpecific(name, x) {
		return nil
	}
	stem := strings.TrimSuffix(path.Base(name), path.Ext(name))
	arches := []string{"amd64", "arm64"}
	if i := strings.LastIndexByte(stem, '_'); i >= 0 && goKnownArch[stem[i+1:]] {
		arches = []string{stem[i+1:]}
	}
	eval := func(arch, tag string) bool {
		return x.Eval(func(t string) bool {
			return t == tag || t == arch || t == "linux" || t == "unix" || t == "gc" || t == "cgo" || strings.HasPrefix(t, "go1.")
		})
	}
	var out []string
	for _, tag := range goCustomTags(x) {
		switches := !eval("riscv64", "") && eval("riscv64", tag)
		for _, a := range arches {
			switches = switches || (eval(a, "") && !eval(a, tag))
		}
		if switches {
			out = append(out, tag)
		}
	}
	return out
}
