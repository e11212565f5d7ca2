// Package fixfiles says which of a package's code files a port's fixes changed. The
// judgement of the package tests (failures after a change to the code itself) and the
// hollow-port checks (what a fix took from the tree) both depend on it, so it is
// answered once, from the state's fix records.
package fixfiles

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
)

// codeExts are the extensions of the files a port's code lives in. A fix that changed
// one changed what the package does, not only how it builds.
var codeExts = map[string]bool{
	".c": true, ".h": true, ".cc": true, ".cpp": true, ".cxx": true, ".c++": true, ".hpp": true,
	".hh": true, ".hxx": true, ".h++": true, ".ipp": true, ".tcc": true, ".inl": true, ".inc": true,
	".go": true, ".rs": true, ".s": true, ".S": true, ".asm": true, ".m": true, ".mm": true,
	".f": true, ".f90": true, ".cu": true,
}

// IsCode reports whether p names a file of the package's code (by its extension).
func IsCode(p string) bool {
	ext := path.Ext(p)
	return codeExts[ext] || codeExts[strings.ToLower(ext)]
}

// mutating matches a command line that changes files: in-place editors, redirections,
// removals, moves, copies and patches.
var mutating = regexp.MustCompile(`\b(sed|perl)\b[^|;&]*\s-[a-zA-Z]*i|>|\b(rm|mv|cp|truncate|tee|patch|install|ln)\b`)

// Changed lists the code files that fixes (the model's or scripted) created, patched,
// edited by command, or deleted, in order and without duplicates.
func Changed(s *atesor.State) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		p = strings.Trim(p, `'"`)
		if p != "" && IsCode(p) && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, p := range s.Patches {
		add(p.File)
	}
	for _, f := range s.FixAttempts {
		for _, p := range f.Files {
			add(p)
		}
		cmds := slices.Clone(f.Commands)
		for _, a := range f.Actions {
			add(a.Path)
			add(a.File)
			if a.Command != "" {
				cmds = append(cmds, a.Command)
			}
		}
		for _, c := range cmds {
			if !mutating.MatchString(c) {
				continue
			}
			for _, tok := range strings.Fields(c) {
				add(strings.TrimLeft(tok, "<>"))
			}
		}
	}
	return out
}

// ByFix maps each repository file a fix took away or changed to what was done to it:
// removals measured against the original tree, patches, files a fix wrote, and code
// files a fix's command edited ([Changed]). The export check names these when a
// function a library should export is missing.
func ByFix(s *atesor.State) map[string]string {
	out := map[string]string{}
	for _, rm := range s.Removals {
		out[rm.File] = rm.String()
	}
	for _, p := range s.Patches {
		if _, ok := out[p.File]; !ok {
			out[p.File] = "patched by " + p.Name
		}
	}
	for _, f := range s.FixAttempts {
		for _, p := range f.Files {
			if _, ok := out[p]; !ok {
				out[p] = fmt.Sprintf("written by fix %d", f.Attempt)
			}
		}
	}
	for _, p := range Changed(s) {
		if _, ok := out[p]; !ok {
			out[p] = "edited by a fix's command"
		}
	}
	return out
}
