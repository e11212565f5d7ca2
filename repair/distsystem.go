package repair

import (
	"context"
	"slices"
	"strings"
)

// repackedVersion is a Debian version whose upstream tarball the distribution repacked
// (+dfsg, +ds, +repack): the usual reason is a bundled copy of another library taken out.
var repackedVersion = re(`\+(?:dfsg|ds|repack)`)

// fetchWords name a switch that downloads at configure time: off or on, an offline
// build cannot fetch, and cmake-missing-subdir's FetchContent handling owns it.
var fetchWords = re(`(?i)download|fetch`)

// maxSystemSwitches bounds the switches one fix adds.
const maxSystemSwitches = 16

// systemCopySwitches are the -D switches that turn on a repacked CMake source's own
// choices of the system's copies (c-blosc's PREFER_EXTERNAL_LZ4, USE_SYSTEM_ZLIB), for
// when the distribution's debian/rules, which would name them, cannot be read: options
// of the top CMakeLists.txt whose name says a system or external copy, that are off by
// default, go on; and options whose name says the bundled copy, that are on by default
// (cpp-jwt's CPP_JWT_USE_VENDORED_NLOHMANN_JSON), go off. The repack took the bundled
// copies out, so the system's are what the build can use; the rule installs the
// distribution's Build-Depends with them.
func systemCopySwitches(ctx context.Context, env Env, version string) []string {
	if !repackedVersion.MatchString(version) || env.ReadFile == nil || !slices.Contains(env.Files, "CMakeLists.txt") {
		return nil
	}
	b, err := env.ReadFile(ctx, "CMakeLists.txt")
	if err != nil || len(b) > maxSubdirRead {
		return nil
	}
	s, err := readCMakeScript("CMakeLists.txt", string(b))
	if err != nil {
		return nil
	}
	var out []string
	for name, o := range s.options {
		if negativeWords.MatchString(name) || strings.HasPrefix(name, "CMAKE_") {
			continue // a negated switch reads backwards; CMake's own are search-mode knobs
		}
		system, bundled := systemWords.MatchString(name), bundledWords.MatchString(name)
		switch {
		case system && !bundled && o.Default == triFalse:
			if strings.Contains(strings.ToLower(name), "find_") {
				continue // a search-mode knob (FIND_PACKAGE_PREFER_CONFIG), not a copy to use
			}
			out = append(out, "-D"+name+"=ON")
		case bundled && !system && o.Default == triTrue && !fetchWords.MatchString(name):
			out = append(out, "-D"+name+"=OFF")
		}
	}
	slices.Sort(out)
	return out[:min(len(out), maxSystemSwitches)]
}
