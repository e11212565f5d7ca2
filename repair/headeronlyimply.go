package repair

import (
	"fmt"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// impliedWay decides whether every leaf of a way to make a test's guard hold can be
// set by the header-only-tests rule, and returns the test switches that leaves the
// build sets itself need. A leaf is settable when it is a test option set the way
// that builds tests or an installable framework, or when the build itself sets it
// that way with a plain set() inside blocks that test options turn on: hera's
// CMakeLists.txt adds its tests only under if(HERA_BUILD_EXAMPLES), an examples
// option, and its if(HERA_BUILD_TESTS) block does set(HERA_BUILD_EXAMPLES ON), so
// -DHERA_BUILD_TESTS=ON is the one switch.
func impliedWay(tc testCommand, way []leaf, cur map[string]bool) ([]testSwitch, bool) {
	s := tc.script
	var out []testSwitch
	for _, l := range way {
		if s.installable(l) != "" || switchesTestsOn(s, l) {
			continue
		}
		sws, ok := impliedSwitches(tc, l, cur)
		if !ok {
			return nil, false
		}
		for _, sw := range sws {
			if !slices.ContainsFunc(out, func(o testSwitch) bool { return o.leaf == sw.leaf }) {
				out = append(out, sw)
			}
		}
	}
	return out, true
}

// impliedSwitches finds a plain set(NAME VALUE) of one of the scripts CMake entered
// to reach the test (the top CMakeLists.txt first) that sets the leaf's variable the
// way it wants, and returns the test switches that make every block around it run.
// Only a set() whose blocks test options alone open counts (one level: a block
// opened by another implied variable does not), and a set() that would also need a
// guard the reader cannot evaluate does not. Where the set() lies before the test is
// not checked beyond the file order CMake reads them in.
func impliedSwitches(tc testCommand, l leaf, cur map[string]bool) ([]testSwitch, bool) {
	if l.op != "var" {
		return nil, false
	}
	for _, s := range tc.chain {
		for i, c := range s.cmds {
			if c.Name != "set" || len(c.Args) != 2 || c.Args[0].Text != l.name {
				continue
			}
			if v, ok := cmakeConst(c.Args[1].Text); !ok || v != l.want {
				continue
			}
			if sws, ok := openGuards(s, s.guards[i], cur, fmt.Sprintf("%s:%d", tc.file, tc.line)); ok {
				return sws, true
			}
		}
	}
	return nil, false
}

// openGuards returns the test switches that make every one of guards hold, each by a
// way of test options alone; false when one cannot be opened that way or is of a
// value the reader cannot know.
func openGuards(s *cmakeScript, guards []guard, cur map[string]bool, at string) ([]testSwitch, bool) {
	var out []testSwitch
	for _, g := range guards {
		val := g.cond.eval(known(s, cur))
		if val == triOf(g.want) {
			continue
		}
		if val == triUnknown {
			return nil, false
		}
		opened := false
		for _, way := range g.cond.ways(g.want, s.settable) {
			if len(way) == 0 || slices.ContainsFunc(way, func(l leaf) bool { return !switchesTestsOn(s, l) }) {
				continue
			}
			for _, l := range way {
				out = append(out, testSwitch{leaf: l, at: at})
			}
			opened = true
			break
		}
		if !opened {
			return nil, false
		}
	}
	return out, true
}

// switchLeaves are the leaves of switches.
func switchLeaves(sws []testSwitch) []leaf {
	out := make([]leaf, len(sws))
	for i, sw := range sws {
		out[i] = sw.leaf
	}
	return out
}

// turnedOnByFixes are the CMake options earlier fixes of the run configured on
// (their strategies' -DNAME=ON): a missing directory such an option gates is not
// gated off again while another way keeps it, so one fix does not undo another
// (header-only-tests turns hera's HERA_BUILD_TESTS on, whose
// add_subdirectory(extern/Catch2) the repack stripped: the distro's Catch2 stands in
// for it instead).
func turnedOnByFixes(fixes []atesor.FixAttempt) map[string]bool {
	out := map[string]bool{}
	for _, f := range fixes {
		for _, m := range cmakeDefine.FindAllStringSubmatch(" "+f.Strategy, -1) {
			if v, ok := cmakeConst(strings.TrimRight(m[2], ",;.")); ok && v {
				out[m[1]] = true
			}
		}
	}
	return out
}

// unpinned returns a copy of settings without the settings pinned holds the same way.
func unpinned(settings, pinned map[string]bool) map[string]bool {
	out := make(map[string]bool, len(settings))
	for k, v := range settings {
		if p, ok := pinned[k]; !ok || p != v {
			out[k] = v
		}
	}
	return out
}
