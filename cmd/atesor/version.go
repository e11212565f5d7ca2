package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
)

// version is set at link time: go build -ldflags "-X main.version=v1.2.3".
var version = ""

// versionString returns the version: the link-time version, else the module version
// and VCS revision of the build.
func versionString() string {
	v, rev, dirty := version, "", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	if v == "" {
		v = "devel"
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		v += " (" + rev
		if dirty {
			v += ", modified"
		}
		v += ")"
	}
	return v
}

func runVersion(_ context.Context, a *app, args []string) int {
	fs := flagSet("version")
	u := usage{synopsis: "atesor version", description: "Print the version of atesor and of the Go toolchain that built it."}
	pos, code, done := parseOrExit(a, fs, u, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return usageError(a, "version", "unexpected argument %q", pos[0])
	}
	fmt.Fprintf(a.stdout, "atesor %s %s %s/%s\n", versionString(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return exitOK
}
