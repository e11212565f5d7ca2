package repair

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
)

const featureOffRuleName = "configure-feature-off"

var (
	// configureError is the message a configure script stops with.
	configureError = re(`(?m)configure: error: (.+)$`)
	// configureHelpSwitch is an --enable-X or --with-X line of a configure script's
	// --help text, which autoconf writes into the script.
	configureHelpSwitch = regexp.MustCompile(`(?m)^ {1,8}--(enable|with)-([A-Za-z0-9][A-Za-z0-9_+.-]*)`)
	// errorWord splits a message into the words a feature is named by.
	errorWord = regexp.MustCompile(`[A-Za-z0-9][A-Za-z0-9_+]*`)
)

// maxConfigureScript bounds the configure script the rule reads (the package's, so
// untrusted text); a generated configure is rarely over a few MB.
const maxConfigureScript = 8 << 20

// genericFeatures are --enable/--with names configure scripts carry for their
// machinery or that a message says for many reasons: a word of an error that matches
// one of them does not name the feature that failed.
var genericFeatures = map[string]bool{"FEATURE": true, "PACKAGE": true, "gnu-ld": true, "pic": true, "fast-install": true,
	"aix-soname": true, "gcc-warnings": true, "werror": true, "debug": true, "sysroot": true, "x": true, "tags": true}

func featureOffRule() Rule {
	return Rule{
		Name: featureOffRuleName,
		Doc: "configure stops on an optional feature (its own --enable-X/--with-X) whose dependency the distribution does not build with " +
			"(no Build-Depends names it): configure with --disable-X/--without-X, as the distribution's build has it",
		Categories: []atesor.ErrorCategory{atesor.CategoryConfiguration, atesor.CategoryDependency, atesor.CategoryMissingTool, atesor.CategoryUnknown},
		Signatures: []*regexp.Regexp{configureError},
		Packaged:   true,
		Make:       makeFeatureOff,
	}
}

func makeFeatureOff(ctx context.Context, f Failure, env Env) (*Fix, string) {
	if env.Plan == nil || env.ReadFile == nil {
		return nil, "no plan or no build files"
	}
	if kind, ok := planConfigureKind(*env.Plan, f.Phase); !ok || kind.name != autotoolsKind.name {
		return nil, "the plan has no configure command"
	}
	msgs := configureError.FindAllStringSubmatch(f.text()+"\n"+f.Message, -1)
	if len(msgs) == 0 {
		return nil, "no configure error in the output"
	}
	msg := strings.TrimSpace(msgs[len(msgs)-1][1])
	b, err := env.ReadFile(ctx, "configure")
	if err != nil {
		return nil, "cannot read the configure script"
	}
	feature, family, ok := failedFeature(excerpt.Head(string(b), maxConfigureScript), msg)
	if !ok {
		return nil, "the configure error names no --enable or --with feature of the script: " + excerpt.Head(msg, 200)
	}
	if env.Distribution == nil {
		return nil, "not a distribution's source: nothing says a build without " + feature + " is the way it is built"
	}
	d, err := env.Distribution(ctx)
	if err != nil || d == nil {
		return nil, "how the distribution builds the source is not known, so nothing says it builds without " + feature
	}
	lower := strings.ToLower(feature)
	if i := slices.IndexFunc(d.BuildDepends, func(p string) bool { return strings.Contains(strings.ToLower(p), lower) }); i >= 0 {
		return nil, fmt.Sprintf("the distribution builds with %s (Build-Depends %s): install it rather than turn it off", feature, d.BuildDepends[i])
	}
	sw := "--disable-" + feature
	if family == "with" {
		sw = "--without-" + feature
	}
	plan, found := withSwitches(*env.Plan, f.Phase, autotoolsKind.command, []string{sw})
	if !found {
		return nil, "no configure command in the plan"
	}
	if samePlan(plan, *env.Plan) {
		return nil, "the plan already configures with " + sw
	}
	return &Fix{
		Analysis: fmt.Sprintf("configure stopped on its optional %s feature (%q); the script has --%s-%s, and Debian's %s %s builds without it "+
			"(no Build-Depends names %s), so the port configures with %s as the distribution's build has it. This leaves %s out of the port.",
			feature, excerpt.Head(msg, 200), family, feature, d.Package, d.Version, feature, sw, feature),
		Strategy: "configure with " + sw,
		Plan:     &plan,
	}, ""
}

// failedFeature finds the one --enable-X or --with-X feature of a configure script
// that a configure error names by a word ("curl-config --libs failed." names curl),
// with the switch family; false when none or several do.
func failedFeature(script, msg string) (feature, family string, ok bool) {
	words := map[string]bool{}
	for _, w := range errorWord.FindAllString(msg, 64) {
		words[strings.ToLower(w)] = true
	}
	found := map[string]string{}
	for _, m := range configureHelpSwitch.FindAllStringSubmatch(script, 512) {
		name := m[2]
		if genericFeatures[name] || autoMachinery[name] || libtoolSwitches[name] || len(name) < 3 ||
			layoutName.MatchString(strings.ReplaceAll(name, "-", "_")) {
			continue
		}
		if words[strings.ToLower(name)] {
			if _, seen := found[name]; !seen {
				found[name] = m[1]
			}
		}
	}
	if len(found) != 1 {
		return "", "", false
	}
	for name, fam := range found {
		return name, fam, true
	}
	return "", "", false
}
