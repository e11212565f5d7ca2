package repair

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Go libraries with assembly for amd64 or arm64 often have no generic implementation for
// other architectures unless a build tag asks for it: a riscv64 build then fails with
// "missing function body" (an assembly function's Go declaration compiled without its
// .s file) or "undefined: name" (the implementation exists only behind build tags).
// Go libraries switch to their portable code with purego (the convention of
// golang.org/x/crypto and most of the ecosystem) or noasm; the module's own
// constraints name its switches (knowledge records them as GoPortableTags).

// goStdPortableTags are the ecosystem's tags for portable Go code, tried after the
// module's own.
var goStdPortableTags = []string{"purego", "noasm"}

// goAsmGapSignatures are the Go compiler's messages for a missing implementation.
var goAsmGapSignatures = []*regexp.Regexp{
	re(`(?m)\.go:\d+:\d+: missing function body`),
	re(`(?m)\.go:\d+:\d+: undefined: [\p{L}_][\p{L}\p{N}_.]*\s*$`),
	re(`(?m)relocation target \S+ not defined`),
}

// goCommand is a go subcommand that takes build flags, with the words before its flags.
var goCommand = re(`(^|&&\s*|;\s*|\|\|\s*|\s)(go\s+(?:build|test|install|vet|run|list))(\s|$)`)

// goTagsFlag is an existing -tags flag of a go command line.
var goTagsFlag = re(`(\s)-tags(?:=|\s+)(?:'([A-Za-z0-9_., ]*)'|"([A-Za-z0-9_., ]*)"|([A-Za-z0-9_.,]+))(\s|$)`)

func goPortableTagsRule() Rule {
	return Rule{
		Name:       "go-portable-tags",
		Doc:        "a Go implementation only in amd64/arm64 assembly: build with the module's portable tags (purego, noasm)",
		Signatures: goAsmGapSignatures,
		Make:       makeGoPortableTags,
	}
}

func makeGoPortableTags(_ context.Context, f Failure, env Env) (*Fix, string) {
	if env.Plan == nil {
		return nil, "no build plan"
	}
	var tags []string
	if env.Detection != nil {
		tags = append(tags, env.Detection.GoPortableTags...)
	}
	for _, t := range goStdPortableTags {
		if !slices.Contains(tags, t) {
			tags = append(tags, t)
		}
	}
	have := GoTags(*env.Plan)
	missing := slices.DeleteFunc(slices.Clone(tags), func(t string) bool { return slices.Contains(have, t) })
	if len(missing) == 0 {
		return nil, "the plan already builds with " + strings.Join(tags, ",")
	}
	plan, changed := withEachCommand(*env.Plan, func(c string) string { return WithGoTags(c, tags) })
	if !changed {
		return nil, "no go build command in the plan to add build tags to"
	}
	own := "the ecosystem's portable tags"
	if env.Detection != nil && len(env.Detection.GoPortableTags) > 0 {
		own = "the module's own switches " + strings.Join(env.Detection.GoPortableTags, ", ") + " and the ecosystem's portable tags"
	}
	return &Fix{
		Analysis: fmt.Sprintf("Go code is implemented only in assembly for other architectures (%s); its portable Go implementation is behind build tags.",
			firstMatchOf(f.text(), goAsmGapSignatures)),
		Strategy: fmt.Sprintf("build with -tags=%s (%s)", strings.Join(tags, ","), own),
		Plan:     &plan,
	}, ""
}

// WithGoTags adds build tags to every go build, test, install, vet, run and list of a
// command line, merging them into an existing -tags flag. Other lines are returned as
// they are.
func WithGoTags(line string, tags []string) string {
	if len(tags) == 0 || !goCommand.MatchString(line) {
		return line
	}
	if goTagsFlag.MatchString(line) {
		return goTagsFlag.ReplaceAllStringFunc(line, func(m string) string {
			sub := goTagsFlag.FindStringSubmatch(m)
			have := splitTags(sub[2] + sub[3] + sub[4])
			for _, t := range tags {
				if !slices.Contains(have, t) {
					have = append(have, t)
				}
			}
			return sub[1] + "-tags=" + strings.Join(have, ",") + sub[5]
		})
	}
	return goCommand.ReplaceAllString(line, "${1}${2} -tags="+strings.Join(tags, ",")+"${3}")
}

// GoTags returns the build tags the plan's go commands pass with -tags, in order.
func GoTags(plan interface{ Commands() []string }) []string {
	var tags []string
	for _, c := range plan.Commands() {
		if !goCommand.MatchString(c) {
			continue
		}
		for _, m := range goTagsFlag.FindAllStringSubmatch(c, -1) {
			for _, t := range splitTags(m[2] + m[3] + m[4]) {
				if !slices.Contains(tags, t) {
					tags = append(tags, t)
				}
			}
		}
	}
	return tags
}

func splitTags(s string) []string {
	var out []string
	for _, t := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func firstMatchOf(text string, res []*regexp.Regexp) string {
	for _, r := range res {
		if m := r.FindString(text); m != "" {
			return strings.TrimSpace(m)
		}
	}
	return "no implementation for riscv64"
}
