package repair

import (
	"context"
	"regexp"
	"strconv"
)

var (
	// cmakeNotFound is a find_package() that found nothing.
	cmakeNotFound = re(`Could NOT find (\w+)`)
	// cmakeNotFoundAt is the same with its call stack, whose first frame in the
	// package's own files (a relative path) is the find_package() call.
	cmakeNotFoundAt = re(`Could NOT find (\w+)[^\n]*(?:\n[^\n]*){0,6}?\n[ \t]*Call Stack \(most recent call first\):\n((?:[ \t]+\S[^\n]*\n?){1,16})`)
	cmakeFindFrame  = re(`(?m)^[ \t]+([^/\s][^:\s]*):(\d+) \(find_package\)\s*$`)
	// cmakeNoConfig is a find_package() in config mode (no Find module, or CONFIG)
	// that found no package configuration file: CMake reports it at the call itself.
	cmakeNoConfig   = re(`By not providing\s+"Find\w+\.cmake"|Could not find a package\s+configuration\s+file\s+provided\s+by`)
	cmakeNoConfigAt = re(`CMake Error at ([^\n:]+):(\d+) \(find_package\):\s+(?:By not providing\s+"Find(\w+)\.cmake"|Could not find a package\s+configuration\s+file\s+provided\s+by\s+"(\w+)")`)
)

func cmakeOptionalPackageRule() Rule {
	return Rule{
		Name: "cmake-optional-package",
		Doc: "a find_package() that found nothing (a Find module's report or no package configuration file): " +
			"a test framework the distro packages is installed (the tests stay); " +
			"a tool for a part the build can leave out (Doxygen for the docs) has that part's option configured off",
		Signatures: []*regexp.Regexp{cmakeNotFound, cmakeNoConfig},
		Make: func(ctx context.Context, f Failure, env Env) (*Fix, string) {
			return makeCMakePart(ctx, f, env, packagesIn)
		},
	}
}

// packagesIn finds the find_package() calls CMake reports as finding nothing: by the
// first frame of each Find module report's call stack in the package's own CMake
// files, and by the file and line of each report of a missing configuration file.
func packagesIn(r *subdirReader, text string) []missingSubdir {
	var subs []missingSubdir
	seen := map[string]bool{}
	add := func(name, at string, pkg string) {
		line, _ := strconv.Atoi(at)
		file, ok := r.locate(name, "find_package", line)
		if !ok {
			return
		}
		if key := file + ":" + at; !seen[key] {
			seen[key] = true
			subs = append(subs, missingSubdir{file: file, cmd: "find_package", line: line, dir: pkg})
		}
	}
	for _, m := range cmakeNotFoundAt.FindAllStringSubmatch(text, 64) {
		fr := cmakeFindFrame.FindStringSubmatch(m[2])
		if fr == nil {
			continue
		}
		add(fr[1], fr[2], m[1])
	}
	for _, m := range cmakeNoConfigAt.FindAllStringSubmatch(text, 64) {
		add(m[1], m[2], m[3]+m[4])
	}
	return subs
}
