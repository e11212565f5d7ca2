package repair

import (
	"context"
	"regexp"
)

// GNU tar's, coreutils' and other gnulib configure scripts refuse to run as root, and a
// sandboxed build runs as the sandbox's root. The message names the way out, the one a
// porter takes (and Debian's own builds, which run as root in a chroot, take too):
// FORCE_UNSAFE_CONFIGURE=1 in configure's environment. It changes no check but that one.

var (
	configureAsRoot = re(`you should not run configure as root \(set FORCE_UNSAFE_CONFIGURE=1 in environment`)
	forceUnsafe     = re(`\bFORCE_UNSAFE_CONFIGURE=(?:'([^']*)'|"([^"]*)"|(\S*))`)
)

func configureRootRule() Rule {
	return Rule{
		Name: "configure-as-root",
		Doc: "a configure script that refuses to run as root (GNU tar's and coreutils' gnulib check): " +
			"FORCE_UNSAFE_CONFIGURE=1 in configure's environment, as the message says",
		Signatures: []*regexp.Regexp{configureAsRoot},
		Make:       makeConfigureRoot,
	}
}

func makeConfigureRoot(_ context.Context, f Failure, env Env) (*Fix, string) {
	if env.Plan == nil {
		return nil, "no build plan to configure differently"
	}
	plan, _, ok := editPlan(*env.Plan, f.Phase, []planEdit{{where: "configure's environment", all: true, do: func(line string) (string, bool) {
		if forceUnsafe.MatchString(line) {
			return line, false
		}
		return editWord(line, configureWord, func(word string) string { return "FORCE_UNSAFE_CONFIGURE=1 " + word }, forceUnsafe, "")
	}}})
	if !ok {
		for _, ph := range env.Plan.Phases {
			for _, c := range ph.Commands {
				if forceUnsafe.MatchString(c) {
					return nil, "the plan already runs configure with FORCE_UNSAFE_CONFIGURE set, and it still refuses root"
				}
			}
		}
		return nil, "no ./configure command in the plan to set FORCE_UNSAFE_CONFIGURE for"
	}
	return &Fix{
		Analysis: "The configure script refuses to run as root (\"you should not run configure as root\", gnulib's check), and the sandbox builds as root. " +
			"FORCE_UNSAFE_CONFIGURE=1, the variable the message names, lifts that one check; nothing else about the build changes.",
		Strategy: "run configure with FORCE_UNSAFE_CONFIGURE=1 in its environment",
		Plan:     &plan,
	}, ""
}
