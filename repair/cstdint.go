package repair

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// GCC 13's libstdc++ stopped including <cstdint> from its other headers, so C++ that
// used uint64_t after <string> or <vector> alone no longer compiles (Debian's clog 1.3.0:
// "JSON2.h:48:34: error: ‘uint64_t’ has not been declared"). Upstreams fixed it by
// including <cstdint> where the type is used; the rule makes that edit.
var (
	stdintType = `u?int(?:8|16|32|64)_t|u?int_(?:least|fast)(?:8|16|32|64)_t|u?intptr_t|u?intmax_t`
	// cstdintError is the C++ compiler's report of such a type, with the file it names.
	cstdintError = re(`(?m)^(\S+\.(?:h|hh|hpp|hxx|h\+\+|ipp|tcc|c|cc|cpp|cxx|c\+\+|C)):\d+:\d+: error: ['‘](?:std::)?(` + stdintType +
		`)['’] (?:has not been declared|was not declared in this scope|does not name a type|is not a member of ['‘]std['’])`)
	cppInclude  = re(`^\s*#\s*include\s*[<"]`)
	cstdintHave = re(`^\s*#\s*include\s*[<"](?:cstdint|stdint\.h|inttypes\.h|cinttypes)[>"]`)
)

// maxCstdintFiles bounds how many files one fix edits.
const maxCstdintFiles = 8

func cstdintRule() Rule {
	return Rule{
		Name: "cxx-cstdint",
		Doc: "C++ that uses uint64_t and friends without including <cstdint>, which GCC 13's libstdc++ no longer brings in through its other headers: " +
			"#include <cstdint> added to each file the errors name, before its first #include",
		Categories: []atesor.ErrorCategory{atesor.CategoryCompilation, atesor.CategoryUnknown},
		Signatures: []*regexp.Regexp{cstdintError},
		Make:       makeCstdint,
	}
}

func makeCstdint(ctx context.Context, f Failure, env Env) (*Fix, string) {
	if env.ReadFile == nil {
		return nil, "the sources cannot be read"
	}
	var files, types []string
	for _, m := range cstdintError.FindAllStringSubmatch(f.text()+"\n"+f.Message, 256) {
		rel, ok := locateFile(env.Files, m[1])
		if ok && !slices.Contains(files, rel) && len(files) < maxCstdintFiles {
			files = append(files, rel)
		}
		if !slices.Contains(types, m[2]) {
			types = append(types, m[2])
		}
	}
	if len(files) == 0 {
		return nil, "the files the errors name are not in the package's tree"
	}
	var actions []atesor.Action
	var notes []string
	for _, rel := range files {
		b, err := env.ReadFile(ctx, rel)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s: %v", rel, err))
			continue
		}
		diff, why := cstdintDiff(rel, string(b))
		if why != "" {
			notes = append(notes, rel+": "+why)
			continue
		}
		actions = append(actions, atesor.Action{Type: atesor.ActionPatch, File: rel, Diff: diff})
	}
	if len(actions) == 0 {
		return nil, strings.Join(notes, "; ")
	}
	edited := make([]string, len(actions))
	for i, a := range actions {
		edited[i] = a.File
	}
	return &Fix{
		Analysis: fmt.Sprintf("%s used without <cstdint>, which GCC 13's libstdc++ no longer includes from its other headers.", strings.Join(types, ", ")),
		Strategy: "include <cstdint> in " + strings.Join(edited, ", "),
		Actions:  actions,
	}, ""
}

// cstdintDiff returns the unified diff that adds #include <cstdint> before the file's
// first #include (after the include guard or #pragma once when it has none), or why it
// makes none.
func cstdintDiff(rel, content string) (string, string) {
	for _, l := range strings.Split(content, "\n") {
		if cstdintHave.MatchString(l) {
			return "", "it already includes <cstdint> or <stdint.h>"
		}
	}
	return includeDiff(rel, content, "cstdint"), ""
}

// includeDiff returns the unified diff that adds #include <header> for each header
// before the file's first #include, or after its include guard or #pragma once when it
// has none: where a system header goes, before anything that could use what it
// declares.
func includeDiff(rel, content string, headers ...string) string {
	lines := strings.Split(content, "\n")
	at := slices.IndexFunc(lines, cppInclude.MatchString)
	if at < 0 {
		at = afterGuard(lines)
	}
	if at >= len(lines) || (at == len(lines)-1 && lines[at] == "") {
		// No line to insert before: the includes are the file's new last lines.
		var add strings.Builder
		for _, h := range headers {
			fmt.Fprintf(&add, "+#include <%s>\n", h)
		}
		count := ""
		if len(headers) > 1 {
			count = fmt.Sprintf(",%d", len(headers))
		}
		return fmt.Sprintf("--- a/%s\n+++ b/%s\n@@ -%d,0 +%d%s @@\n%s", rel, rel, at, at+1, count, add.String())
	}
	includes := make([]string, len(headers))
	for i, h := range headers {
		includes[i] = "#include <" + h + ">"
	}
	return insertLinesDiff(rel, lines, at, includes)
}

// afterGuard is the index of the line after a header's #pragma once or include guard
// (#ifndef X then #define X), or 0.
func afterGuard(lines []string) int {
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case t == "" || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "*"):
			continue
		case strings.HasPrefix(t, "#pragma once"):
			return i + 1
		case strings.HasPrefix(t, "#ifndef") && i+1 < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i+1]), "#define"):
			return i + 2
		}
		return i
	}
	return 0
}
