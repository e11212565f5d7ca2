package repair

import (
	"context"
	"fmt"
	"path"
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
	// configureHelpSwitch is an --enable-X, --disable-X, --with-X or --without-X line
	// of a configure script's --help text, which autoconf writes into the script: a
	// feature on by default is listed by its off switch (dropwatch's --without-bfd).
	configureHelpSwitch = regexp.MustCompile(`(?m)^ {1,8}--(enable|disable|with|without)-([A-Za-z0-9][A-Za-z0-9_+.-]*)`)
	// errorWord splits a message or a path into the words a feature is named by.
	errorWord = regexp.MustCompile(`[A-Za-z0-9][A-Za-z0-9+]*`)
	// makeRecipeFailed and makeLeaving are a sub-make's failed recipe and the
	// directory it leaves, with the make level.
	makeRecipeFailed = re(`(?m)^make\[(\d+)\]: \*\*\* \[[^\]\n]*\] Error \d+`)
	makeLeaving      = re(`(?m)^make\[(\d+)\]: Leaving directory '([^'\n]+)'`)
	// headerMissingIn is a compile that stops at a header no package installed, with
	// the source that includes it.
	headerMissingIn = re(`(?m)^(\S+\.(?:c|cc|cpp|cxx|C)):\d+:\d+: fatal error: (\S+\.h(?:h|pp|xx)?): No such file or directory`)
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
		Doc: "configure stops on an optional feature (its own --enable-X/--with-X), or the feature's sources miss a header, " +
			"and the distribution does not build with its dependency (no Build-Depends names it): configure with --disable-X/--without-X, as the distribution's build has it",
		Categories: []atesor.ErrorCategory{atesor.CategoryConfiguration, atesor.CategoryDependency, atesor.CategoryMissingTool, atesor.CategoryCompilation, atesor.CategoryUnknown},
		Signatures: []*regexp.Regexp{configureError, headerMissingIn, makeRecipeFailed},
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
	text := f.text() + "\n" + f.Message
	// The words that may name the feature: those of configure's error, or the
	// directories of a source that misses a header (genders' Java extension,
	// src/extensions/java/src/Gendersjni.c, misses jni.h).
	var msg, where string
	words := map[string]bool{}
	if msgs := configureError.FindAllStringSubmatch(text, -1); len(msgs) > 0 {
		msg = strings.TrimSpace(msgs[len(msgs)-1][1])
		where = "the configure error"
		addWords(words, msg)
	} else if m := headerMissingIn.FindStringSubmatch(text); m != nil {
		src, ok := locateFile(env.Files, m[1])
		if !ok {
			return nil, "the source that misses " + m[2] + " is not in the tree"
		}
		msg = src + " misses " + m[2]
		where = "the directories of " + src
		addWords(words, path.Dir(src))
	} else if dir, ok := failedMakeDir(text, env.RepoDir); ok {
		// A recipe that fails in a directory of its own (genders' Python extension runs
		// genderssetup.py, which is not there, in src/extensions/python).
		msg = "make failed in " + dir
		where = "the directories make failed in, " + dir + ","
		addWords(words, dir)
	} else {
		return nil, "no configure error, missing header or failed make directory in the output"
	}
	b, err := env.ReadFile(ctx, "configure")
	if err != nil {
		return nil, "cannot read the configure script"
	}
	feature, family, ok := failedFeature(excerpt.Head(string(b), maxConfigureScript), words)
	if !ok {
		return nil, where + " names no --enable or --with feature of the script: " + excerpt.Head(msg, 200)
	}
	if env.Distribution == nil {
		return nil, "not a distribution's source: nothing says a build without " + feature + " is the way it is built"
	}
	d, err := env.Distribution(ctx)
	if err != nil || d == nil {
		return nil, "how the distribution builds the source is not known, so nothing says it builds without " + feature
	}
	// A Build-Depends naming any part of the feature's name (curl in libcurl4-gnutls-dev)
	// says the distribution builds with it.
	for _, part := range featureParts(feature) {
		if len(part) < 3 {
			continue
		}
		if i := slices.IndexFunc(d.BuildDepends, func(p string) bool { return strings.Contains(strings.ToLower(p), part) }); i >= 0 {
			return nil, fmt.Sprintf("the distribution builds with %s (Build-Depends %s): install it rather than turn it off", feature, d.BuildDepends[i])
		}
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
		Analysis: fmt.Sprintf("the build stopped on its optional %s feature (%q); the script has --%s-%s, and Debian's %s %s builds without it "+
			"(no Build-Depends names %s), so the port configures with %s as the distribution's build has it. This leaves %s out of the port.",
			feature, excerpt.Head(msg, 200), family, feature, d.Package, d.Version, feature, sw, feature),
		Strategy: "configure with " + sw,
		Plan:     &plan,
	}, ""
}

// failedMakeDir is the directory, relative to the repository, of the first make
// recipe that failed: the "Leaving directory" of the same make level after its
// "*** [...] Error" line. False for the repository itself or a directory outside it.
func failedMakeDir(text, repoDir string) (string, bool) {
	m := makeRecipeFailed.FindStringSubmatchIndex(text)
	if m == nil || repoDir == "" {
		return "", false
	}
	level := text[m[2]:m[3]]
	for _, l := range makeLeaving.FindAllStringSubmatch(text[m[1]:], 16) {
		if l[1] != level {
			continue
		}
		rel, ok := strings.CutPrefix(path.Clean(l[2]), strings.TrimSuffix(repoDir, "/")+"/")
		return rel, ok && rel != "" && !strings.HasPrefix(rel, "..")
	}
	return "", false
}

// addWords adds the words of s, lower-cased, to words.
func addWords(words map[string]bool, s string) {
	for _, w := range errorWord.FindAllString(s, 64) {
		words[strings.ToLower(w)] = true
	}
}

// featureParts are the lower-cased parts of a feature's name (java-extensions: java,
// extensions).
func featureParts(name string) []string {
	return strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == '-' || r == '_' || r == '.' })
}

// featureNamed reports whether every part of a feature's name (java-extensions: java,
// extensions) is one of words.
func featureNamed(name string, words map[string]bool) bool {
	parts := featureParts(name)
	return len(parts) > 0 && !slices.ContainsFunc(parts, func(p string) bool { return !words[p] })
}

// switchFamily is the family of a switch of the help text: the off switch a feature
// on by default is listed with names the same feature.
var switchFamily = map[string]string{"enable": "enable", "disable": "enable", "with": "with", "without": "with"}

// failedFeature finds the one --enable-X or --with-X feature of a configure script
// that words name, every part of its name a word ("curl-config --libs failed." names
// curl, src/extensions/java names java-extensions), with the switch family; false
// when none or several do.
func failedFeature(script string, words map[string]bool) (feature, family string, ok bool) {
	found := map[string]string{}
	for _, m := range configureHelpSwitch.FindAllStringSubmatch(script, 512) {
		name := m[2]
		if genericFeatures[name] || autoMachinery[name] || libtoolSwitches[name] || len(name) < 3 ||
			layoutName.MatchString(strings.ReplaceAll(name, "-", "_")) {
			continue
		}
		if featureNamed(name, words) {
			if _, seen := found[name]; !seen {
				found[name] = switchFamily[m[1]]
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
