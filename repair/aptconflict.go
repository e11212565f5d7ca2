package repair

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// apt refuses an install line that names two packages which exclude each other: the
// plan's own choice of a -dev package (detection maps pkg-config's libcurl to
// libcurl4-openssl-dev) and the distribution's Build-Depends (mpdscribble's
// libcurl4-gnutls-dev), each providing the same interface. apt names the pair itself;
// the distribution's choice is the one its build is known to work with, so the other
// goes.
var aptConflict = re(`(?m)^\s+([a-z0-9][a-z0-9+.-]*[a-z0-9+.])(?::[a-z0-9-]+)? : (?:Conflicts|Breaks): ([a-z0-9][a-z0-9+.-]*[a-z0-9+.])(?::[a-z0-9-]+)?\b`)

func aptConflictRule() Rule {
	return Rule{
		Name: "apt-conflict",
		Doc: "an install line naming two packages that conflict (the plan's choice and the distribution's Build-Depends, " +
			"such as libcurl4-openssl-dev and libcurl4-gnutls-dev): the one the Build-Depends do not name is dropped from the plan",
		Categories: nil,
		Signatures: []*regexp.Regexp{re(`(?m)^\s+\S+ : (?:Conflicts|Breaks): `)},
		Make:       makeAptConflict,
	}
}

// conflictPairs returns the pairs of packages apt says exclude each other, each once.
func conflictPairs(text string) [][2]string {
	var out [][2]string
	for _, m := range aptConflict.FindAllStringSubmatch(text, -1) {
		p := [2]string{m[1], m[2]}
		if p[0] == p[1] || slices.Contains(out, p) || slices.Contains(out, [2]string{p[1], p[0]}) {
			continue
		}
		out = append(out, p)
	}
	return out
}

func makeAptConflict(ctx context.Context, f Failure, env Env) (*Fix, string) {
	pairs := conflictPairs(f.text() + "\n" + f.Message)
	if len(pairs) == 0 {
		return nil, "apt names no two packages that conflict"
	}
	if env.Plan == nil {
		return nil, "no build plan to drop a package from"
	}
	if env.Distribution == nil {
		return nil, "the source has no distribution counterpart whose Build-Depends would say which of the conflicting packages to keep"
	}
	d, err := env.Distribution(ctx)
	if err != nil || d == nil {
		return nil, fmt.Sprintf("the distribution's Build-Depends, which would say which conflicting package to keep, are not known (%v)", err)
	}
	var drop, why []string
	for _, p := range pairs {
		keepA, keepB := slices.Contains(d.BuildDepends, p[0]), slices.Contains(d.BuildDepends, p[1])
		if keepA == keepB {
			return nil, fmt.Sprintf("%s and %s conflict, and the Build-Depends of %s %s name %s", p[0], p[1], d.Package, d.Version,
				map[bool]string{true: "both", false: "neither"}[keepA])
		}
		keep, other := p[0], p[1]
		if keepB {
			keep, other = p[1], p[0]
		}
		if !slices.Contains(drop, other) {
			drop = append(drop, other)
			why = append(why, fmt.Sprintf("%s conflicts with %s, which %s %s builds with", other, keep, d.Package, d.Version))
		}
	}
	plan, dropped := withoutPackages(*env.Plan, installCommand(env), drop)
	if len(dropped) == 0 {
		return nil, "the plan's install lines do not name " + strings.Join(drop, " ")
	}
	return &Fix{
		Analysis: "apt refused the install: " + strings.Join(why, "; ") + " (its Build-Depends); the plan's own choice is dropped.",
		Strategy: "install without " + strings.Join(dropped, " "),
		Plan:     &plan,
	}, ""
}

// withoutPackages returns the plan with the words drop removed from its install
// commands (the lines that run install, the platform's package install command), and the
// packages it removed.
func withoutPackages(plan atesor.BuildPlan, install string, drop []string) (atesor.BuildPlan, []string) {
	var dropped []string
	phases := slices.Clone(plan.Phases)
	for i, ph := range phases {
		cmds := slices.Clone(ph.Commands)
		for j, c := range cmds {
			at := strings.Index(c, install)
			if at < 0 {
				continue
			}
			// Only the words of the install command itself, up to the next && or ;.
			head, rest := c[:at+len(install)], c[at+len(install):]
			end := len(rest)
			if k := strings.IndexAny(rest, "&;|"); k >= 0 {
				end = k
			}
			words := strings.Fields(rest[:end])
			kept := slices.DeleteFunc(slices.Clone(words), func(w string) bool {
				if slices.Contains(drop, w) {
					if !slices.Contains(dropped, w) {
						dropped = append(dropped, w)
					}
					return true
				}
				return false
			})
			if len(kept) == len(words) {
				continue
			}
			tail := rest[end:]
			if tail != "" {
				tail = " " + strings.TrimLeft(tail, " ")
			}
			cmds[j] = head + " " + strings.Join(kept, " ") + tail
		}
		phases[i].Commands = cmds
	}
	plan.Phases = phases
	return plan, dropped
}
