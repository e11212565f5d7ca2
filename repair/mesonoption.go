package repair

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
)

const mesonNamedOptionRuleName = "meson-named-option"

var (
	// mesonProblem is a meson.build's own error() call as meson reports it.
	mesonProblem = re(`ERROR: Problem encountered: (.+)`)
	// mesonEnableWords is an error() message telling the user to turn an option on:
	// mm-common's "Missing files in untracked/. You must enable maintainer-mode."
	mesonEnableWords = regexp.MustCompile(`(?i)\b(?:enable|turn on|switch on)\s+(?:the\s+)?(?:option\s+)?['"‘]?([A-Za-z0-9][A-Za-z0-9_-]*)`)
)

func mesonNamedOptionRule() Rule {
	return Rule{
		Name: mesonNamedOptionRuleName,
		Doc: "a meson.build's own error() that says which of its options to turn on (mm-common's " +
			"\"Missing files in untracked/. You must enable maintainer-mode.\"): meson setup with that option on",
		Signatures: []*regexp.Regexp{mesonProblem},
		Make:       makeMesonNamedOption,
	}
}

func makeMesonNamedOption(ctx context.Context, f Failure, env Env) (*Fix, string) {
	if env.Plan == nil || env.ReadFile == nil {
		return nil, "no plan or no build files"
	}
	text := f.text() + "\n" + f.Message
	m := mesonProblem.FindStringSubmatch(text)
	if m == nil {
		return nil, "no meson error() message"
	}
	msg := strings.TrimSpace(m[1])
	file, line := mesonErrorFile(env.Files, text)
	if file == "" {
		return nil, "the output does not say which meson.build stopped"
	}
	opts := mesonOptions(ctx, env, path.Dir(file))
	var name string
	for _, w := range mesonEnableWords.FindAllStringSubmatch(msg, 8) {
		if _, ok := opts[w[1]]; ok {
			name = w[1]
			break
		}
	}
	if name == "" {
		return nil, fmt.Sprintf("%s:%d stops with %q, which tells to turn on no option of the project", file, line, excerpt.Head(msg, 200))
	}
	value, ok := mesonOnValue(opts[name])
	if !ok {
		return nil, fmt.Sprintf("the %s option named by %s:%d is of a type (%s) with no value that turns it on", name, file, line, opts[name].Type)
	}
	plan, found := withMesonDefine(*env.Plan, f.Phase, name, value)
	if !found {
		return nil, "no meson setup command in the plan"
	}
	if samePlan(plan, *env.Plan) {
		return nil, "the plan already configures -D" + name + "=" + value
	}
	return &Fix{
		Analysis: fmt.Sprintf("%s:%d stops the configure with the project's own error, %q: meson setup gets -D%s=%s, the option it names.",
			file, line, excerpt.Head(msg, 200), name, value),
		Strategy: "configure with -D" + name + "=" + value,
		Plan:     &plan,
	}, ""
}

// mesonOnValue is the value that turns an option on: true for a boolean, enabled for a
// feature, and a combo's "true" or "enabled" choice.
func mesonOnValue(o mesonOption) (string, bool) {
	switch o.Type {
	case "boolean":
		return "true", true
	case "feature":
		return "enabled", true
	case "combo":
		for _, v := range []string{"true", "enabled", "yes"} {
			if slices.Contains(o.Choices, v) {
				return v, true
			}
		}
	}
	return "", false
}
