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
)

func cmakeOptionalPackageRule() Rule {
	return Rule{
		Name: "cmake-optional-package",
		Doc: "a find_package() that found nothing: a test framework the distro packages is installed (the tests stay); " +
			"a tool for a part the build can leave out (Doxygen for the docs) has that part's option configured off",
		Signatures: []*regexp.Regexp{cmakeNotFound},
		Make: func(ctx context.Context, f Failure, env Env) (*Fix, string) {
			return makeCMakePart(ctx, f, env, packagesIn)
		},
	}
}

// packagesIn finds the find_package() calls CMake reports as finding nothing, by the
// first frame of each report's call stack in the package's own CMake files.
func packagesIn(r *subdirReader, text string) []missingSubdir {
	var subs []missingSubdir
	seen := map[string]bool{}
	for _, m := range cmakeNotFoundAt.FindAllStringSubmatch(text, 64) {
		fr := cmakeFindFrame.FindStringSubmatch(m[2])
		if fr == nil {
			continue
		}
		line, _ := strconv.Atoi(fr[2])
		file, ok := r.locate(fr[1], "find_package", line)
		if !ok {
			continue
		}
		if key := file + ":" + fr[2]; !seen[key] {
			seen[key] = true
			subs = append(subs, missingSubdir{file: file, cmd: "find_package", line: line, dir: m[1]})
		}
	}
	return subs
}
