package repair

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// A build for a device or framework may take the SDK it builds against from a
// variable the user sets: picotool 2.1.1's CMakeLists.txt stops at "PICO_SDK_PATH is
// not defined" and then includes ${PICO_SDK_PATH}/pico_sdk_version.cmake and adds
// directories below it. Debian's packaging sets such a variable to the directory a
// Build-Depends installs (pico-sdk-source's /usr/share/pico-sdk). A porter installs
// the package named like the variable, finds the directory of it that holds what the
// build looks for below the variable, and configures with it; the plan records both,
// so the recipe replays them.

const sdkPathRuleName = "sdk-path"

// sdkVariable is a variable that names a directory: FOO_PATH, FOO_DIR, FOO_ROOT,
// FOO_HOME, in upper case as SDKs name theirs (find_package's mixed-case Foo_DIR is
// left to the rules for packages).
const sdkVariable = `([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:PATH|DIR|ROOT|HOME))`

// sdkPathAsks are the messages of a build that asks for such a variable: CMake's
// message(FATAL_ERROR "PICO_SDK_PATH is not defined"), the Pico SDK's import file's
// "Please set PICO_SDK_PATH or ...", and the like. The first group is the variable.
var sdkPathAsks = []*regexp.Regexp{
	re(`\b` + sdkVariable + `(?: environment variable)? (?:is|was) (?:not (?:defined|set|specified)|undefined|empty)\b`),
	re(`\b(?:[Pp]lease|[Yy]ou (?:must|need to)|[Mm]ust) (?:set|define|specify) (?:the )?(?:(?:CMake |environment |cache )?variable )?` + sdkVariable + `\b`),
}

// sdkVariableSuffixes are the endings sdkVariable takes; what is before one is the
// stem that names the SDK (PICO_SDK).
var sdkVariableSuffixes = []string{"_PATH", "_DIR", "_ROOT", "_HOME"}

// Bounds of the search: how many Build-Depends named like the stem are installed and
// listed, and how many paths below the variable are looked for.
const (
	sdkMaxPackages = 3
	sdkMaxMentions = 64
)

func sdkPathRule() Rule {
	return Rule{
		Name: sdkPathRuleName,
		Doc: "a configure step that asks for an SDK's directory in a variable (picotool: PICO_SDK_PATH is not defined): " +
			"install the Build-Depends named like it and pass the directory of it that holds what the build looks for",
		Categories: []atesor.ErrorCategory{atesor.CategoryConfiguration, atesor.CategoryDependency, atesor.CategoryUnknown},
		Signatures: sdkPathAsks,
		Packaged:   true,
		Make:       makeSDKPath,
	}
}

// askedVariable is the first variable the failure's text asks for.
func askedVariable(text string) (string, bool) {
	first, name := -1, ""
	for _, p := range sdkPathAsks {
		if m := p.FindStringSubmatchIndex(text); m != nil && (first < 0 || m[2] < first) {
			first, name = m[2], text[m[2]:m[3]]
		}
	}
	return name, first >= 0
}

func makeSDKPath(ctx context.Context, f Failure, env Env) (*Fix, string) {
	variable, ok := askedVariable(f.Message)
	if !ok {
		if variable, ok = askedVariable(f.Output); !ok {
			return nil, "no variable of an SDK's directory named"
		}
	}
	if env.Plan == nil {
		return nil, "no build plan to configure with " + variable
	}
	kind, configures := planConfigureKind(*env.Plan, f.Phase)
	if !configures {
		return nil, "no cmake, meson or configure command in the plan to pass " + variable + " to"
	}
	if env.Distribution == nil {
		return nil, "the source has no counterpart in the distribution, whose Build-Depends would name the package of " + variable
	}
	d, err := env.Distribution(ctx)
	if err != nil {
		return nil, "the distribution's packaging could not be read: " + err.Error()
	}
	if d == nil {
		return nil, "the source has no counterpart in the distribution, whose Build-Depends would name the package of " + variable
	}
	stem := sdkStem(variable)
	pkgs := packagesNamedLike(d.installable(), stem)
	if len(pkgs) == 0 {
		return nil, fmt.Sprintf("no Build-Depends of %s %s is named like %s (%s)", d.Package, d.Version, stem, strings.Join(d.installable(), " "))
	}
	if env.PackageFiles == nil {
		return nil, "the sandbox cannot list the files of " + strings.Join(pkgs, " ")
	}
	text := buildFileText(ctx, env, kind)
	mentions := mentionsBelow(text, variable)
	var notes []string
	for _, pkg := range pkgs {
		files, err := env.PackageFiles(ctx, pkg)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s: %v", pkg, err))
			continue
		}
		dir, held := sdkDirectory(files, mentions, stem)
		if dir == "" {
			notes = append(notes, fmt.Sprintf("no directory of %s holds %s", pkg, describeMentions(mentions, stem)))
			continue
		}
		return sdkPathFix(ctx, env, f, kind, text, variable, pkg, dir, held, len(mentions), d)
	}
	return nil, strings.Join(notes, "; ")
}

// sdkStem is the variable less its ending: the SDK's name (PICO_SDK_PATH -> PICO_SDK).
func sdkStem(variable string) string {
	for _, s := range sdkVariableSuffixes {
		if stem, ok := strings.CutSuffix(variable, s); ok {
			return stem
		}
	}
	return variable
}

// packagesNamedLike are the packages whose name holds the stem's words in a row
// (PICO_SDK: pico-sdk-source; a lib prefix of a word counts as absent), those that
// start with them first, then by fewest other words; at most sdkMaxPackages.
func packagesNamedLike(pkgs []string, stem string) []string {
	want := strings.Split(strings.ToLower(stem), "_")
	type hit struct {
		name       string
		at, others int
	}
	var hits []hit
	for _, p := range pkgs {
		words := strings.FieldsFunc(p, func(r rune) bool { return r == '-' || r == '.' || r == '+' })
		for i := 0; i+len(want) <= len(words); i++ {
			match := true
			for j, w := range want {
				got := words[i+j]
				if got != w && strings.TrimPrefix(got, "lib") != w {
					match = false
					break
				}
			}
			if match {
				hits = append(hits, hit{p, i, len(words) - len(want)})
				break
			}
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int {
		if a.at != b.at {
			return a.at - b.at
		}
		return a.others - b.others
	})
	var out []string
	for _, h := range hits {
		if len(out) < sdkMaxPackages {
			out = append(out, h.name)
		}
	}
	return out
}

// mentionBelow is a path the build files name below a variable: CMake's ${VAR}/x/y
// and $ENV{VAR}/x/y, a shell's $VAR/x/y, up to the first character that cannot be in a
// plain path.
func mentionBelow(variable string) *regexp.Regexp {
	v := regexp.QuoteMeta(variable)
	return regexp.MustCompile(`\$(?:ENV\{` + v + `\}|\{` + v + `\}|` + v + `)/([A-Za-z0-9_.+-]+(?:/[A-Za-z0-9_.+-]+)*)`)
}

// mentionsBelow are the distinct paths the build files name below the variable, in
// the order they first appear; paths with . or .. elements are left out.
func mentionsBelow(text, variable string) []string {
	var out []string
	for _, m := range mentionBelow(variable).FindAllStringSubmatch(text, -1) {
		rel := strings.TrimRight(m[1], "/.")
		if rel == "" || path.Clean(rel) != rel || strings.HasPrefix(rel, "..") || slices.Contains(out, rel) {
			continue
		}
		if out = append(out, rel); len(out) == sdkMaxMentions {
			break
		}
	}
	return out
}

// plainDir is a directory a plan line may name as it is: absolute, below the root, no
// shell syntax.
var plainDir = re(`^(?:/[A-Za-z0-9_.+-]+)+$`)

// sdkDirectory is the directory of the package's files that holds the most of the
// mentioned paths (the shallowest of equals), and how many it holds. With no mention
// it is the directory of a CMake file named like the stem (pico_sdk_init.cmake), the
// marker an SDK's own import file looks for.
func sdkDirectory(files, mentions []string, stem string) (string, int) {
	held := map[string]int{}
	if len(mentions) > 0 {
		for _, m := range mentions {
			seen := map[string]bool{}
			for _, f := range files {
				if dir, ok := strings.CutSuffix(f, "/"+m); ok && plainDir.MatchString(dir) && !seen[dir] {
					seen[dir] = true
					held[dir]++
				}
			}
		}
	} else {
		prefix := strings.ToLower(stem)
		for _, f := range files {
			base := strings.ReplaceAll(strings.ToLower(path.Base(f)), "-", "_")
			if strings.HasPrefix(base, prefix) && strings.HasSuffix(base, ".cmake") && plainDir.MatchString(path.Dir(f)) {
				held[path.Dir(f)]++
			}
		}
	}
	best, most := "", 0
	for dir, n := range held {
		if n > most || n == most && (strings.Count(dir, "/") < strings.Count(best, "/") || strings.Count(dir, "/") == strings.Count(best, "/") && dir < best) {
			best, most = dir, n
		}
	}
	return best, most
}

// describeMentions says what the directory was looked for by.
func describeMentions(mentions []string, stem string) string {
	if len(mentions) == 0 {
		return "a CMake file named like " + strings.ToLower(stem)
	}
	if len(mentions) > 3 {
		return strings.Join(mentions[:3], ", ") + fmt.Sprintf(" or %d other paths the build files name", len(mentions)-3)
	}
	return strings.Join(mentions, ", ")
}

// sdkPathFix configures the build with the variable set to dir: a CMake -D, or the
// configure command's environment when that is where the build reads it,
// and the package installed in the setup.
func sdkPathFix(ctx context.Context, env Env, f Failure, kind configureKind, text, variable, pkg, dir string, held, mentioned int, d *Distribution) (*Fix, string) {
	plan := *env.Plan
	var how string
	// CMake reads the variable itself unless its build files take it only from the
	// environment ($ENV{VAR}, never ${VAR}); a configure script or meson build reads
	// the environment.
	if kind.name == cmakeKind.name && (strings.Contains(text, "${"+variable+"}") || !strings.Contains(text, "ENV{"+variable+"}")) {
		plan, _ = withSwitches(plan, f.Phase, kind.command, []string{"-D" + variable + "=" + dir})
		how = "-D" + variable + "=" + dir
	} else {
		assign := variable + "=" + dir
		set := regexp.MustCompile(`(?:^|\s)` + variable + `=`)
		edited, _, ok := editPlan(plan, f.Phase, []planEdit{{where: "configure's environment", do: func(line string) (string, bool) {
			loc := kind.command.FindStringSubmatchIndex(line)
			if loc == nil || set.MatchString(line) {
				return line, false
			}
			return line[:loc[4]] + assign + " " + line[loc[4]:], true
		}}})
		if !ok {
			return nil, fmt.Sprintf("the plan's %s command already runs with %s set", kind.name, variable)
		}
		plan, how = edited, assign+" in "+kind.name+"'s environment"
	}
	// The Build-Depends name the SDK, so the others are what the distribution's build
	// has beside it (picotool's libusb-1.0-0-dev, without which it builds with no USB
	// support): one attempt installs them all.
	rest := otherBuildDepends(ctx, env, []string{pkg})
	plan = withPackages(plan, env, append([]string{pkg}, rest...))
	if samePlan(plan, *env.Plan) {
		return nil, fmt.Sprintf("the plan already installs %s and configures with %s, and the build still asks for it", pkg, how)
	}
	found := fmt.Sprintf("holds %d of the %d paths the build files name below ${%s}", held, mentioned, variable)
	if mentioned == 0 {
		found = fmt.Sprintf("holds the SDK's CMake files (named like %s)", strings.ToLower(sdkStem(variable)))
	}
	return &Fix{
		Analysis: fmt.Sprintf("The build asks for %s, the directory of an SDK it builds against. %s %s's Build-Depends name %s, whose %s %s; "+
			"the distribution's build points the variable at the installed SDK, so the port does too.", variable, d.Package, d.Version, pkg, dir, found) + othersNote(rest),
		Strategy: fmt.Sprintf("install %s and configure with %s", strings.Join(append([]string{pkg}, rest...), " "), how),
		Plan:     &plan,
	}, ""
}

// othersNote says which other Build-Depends a fix installs with the one it is about.
func othersNote(rest []string) string {
	if len(rest) == 0 {
		return ""
	}
	return " Its other Build-Depends are installed with it: " + strings.Join(rest, " ") + "."
}
