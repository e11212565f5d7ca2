package validate

import (
	"path"
	"strings"
)

// systemTop are the top-level directories that hold the operating system. Writing there
// changes the sandbox's system, not the package.
var systemTop = map[string]bool{
	"etc": true, "usr": true, "bin": true, "sbin": true, "lib": true, "lib32": true,
	"lib64": true, "libx32": true, "boot": true, "dev": true, "proc": true, "sys": true,
	"var": true, "opt": true, "run": true, "srv": true, "snap": true, "mnt": true,
	"media": true,
}

// writableDevices are the device files a command may write to.
var writableDevices = map[string]bool{
	"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/tty": true, "/dev/zero": true,
}

// isSystemPath reports whether writing to p changes system files. p may contain dyn
// markers; strict decides how an unknown path counts (true: as a system path).
// Allowed: relative paths, /tmp, /var/tmp, /workspace, /root, /usr/local, /dev/null and
// the standard streams.
func isSystemPath(p string, strict bool) bool {
	if p == "" {
		return false
	}
	known, unknownTail := p, false
	if i := strings.Index(p, dyn); i >= 0 {
		known, unknownTail = p[:i], true
		if known == "" {
			return strict
		}
	}
	if !strings.HasPrefix(known, "/") {
		return false
	}
	if writableDevices[known] || strings.HasPrefix(known, "/dev/fd/") {
		return false
	}
	// The first component must be complete to decide.
	rest := strings.TrimLeft(known, "/")
	first, after, complete := strings.Cut(rest, "/")
	if !complete && unknownTail {
		return strict || first == ""
	}
	if !unknownTail {
		c := path.Clean(known)
		if c == "/" {
			return true
		}
		rest = strings.TrimPrefix(c, "/")
		first, after, _ = strings.Cut(rest, "/")
		if !strings.Contains(rest, "/") {
			// A new file directly in / is a system change too; the allowed
			// directories themselves are fine targets (mkdir -p /tmp).
			return !allowedTop(first)
		}
	}
	if first == "usr" && (after == "local" || strings.HasPrefix(after, "local/")) {
		if unknownTail && !strings.HasPrefix(after, "local/") {
			return strict
		}
		return false
	}
	if first == "var" && (after == "tmp" || strings.HasPrefix(after, "tmp/")) {
		return false
	}
	if globChars(first) {
		return true
	}
	return systemTop[first]
}

func allowedTop(first string) bool {
	switch first {
	case "tmp", "workspace", "root":
		return true
	}
	return false
}

func globChars(s string) bool { return strings.ContainsAny(s, "*?[") }

// wildcardAll reports whether a path component matches every name (*, .*, [a-z]*, ...).
func wildcardAll(comp string) bool {
	if !globChars(comp) {
		return false
	}
	var b strings.Builder
	depth := 0
	for _, r := range comp {
		switch {
		case r == '[':
			depth++
		case r == ']' && depth > 0:
			depth--
		case depth > 0:
		default:
			b.WriteRune(r)
		}
	}
	return strings.Trim(b.String(), "*?.") == ""
}

// rmTargetProblem says why removing target is destructive, or returns "".
// Removable: relative paths inside the repository (not the repository itself, not a
// wildcard over all of it), and paths below /tmp, /var/tmp, /workspace/<repo>/ and
// /root/.cache.
func rmTargetProblem(t string) string {
	if strings.Contains(t, dyn) {
		return "its target is only known at run time"
	}
	if t == "" {
		return ""
	}
	if !strings.HasPrefix(t, "/") {
		c := path.Clean(t)
		if c == "." {
			return "it removes the whole repository"
		}
		if c == ".git" || strings.HasPrefix(c, ".git/") && !strings.HasSuffix(c, ".lock") {
			return "it removes the repository's git data, which Atesor needs to record the fixes as patches"
		}
		if c == ".." || strings.HasPrefix(c, "../") {
			return "it removes files outside the repository"
		}
		if first, _, _ := strings.Cut(c, "/"); wildcardAll(first) {
			return "the wildcard removes the whole repository"
		}
		return ""
	}
	c := path.Clean(t)
	comps := strings.Split(strings.TrimPrefix(c, "/"), "/")
	if c == "/" || len(comps) == 0 {
		return "it removes the root file system"
	}
	deepEnough := func(n int) bool {
		if len(comps) < n {
			return false
		}
		for _, comp := range comps[:n] {
			if wildcardAll(comp) {
				return false
			}
		}
		return true
	}
	switch {
	case comps[0] == "tmp" && deepEnough(2):
		return ""
	case comps[0] == "var" && len(comps) > 1 && comps[1] == "tmp" && deepEnough(3):
		return ""
	case comps[0] == "workspace" && deepEnough(3):
		return ""
	case comps[0] == "root" && len(comps) > 1 && comps[1] == ".cache" && deepEnough(3):
		return ""
	}
	if len(comps) == 1 && comps[0] == "root" {
		return "it removes the home directory"
	}
	if len(comps) == 1 {
		return "it removes a top-level directory of the system"
	}
	return "it removes files outside the repository and /tmp"
}

// repoRelative checks that p names a path inside the repository: relative (or absolute
// below root when root is given), no .. escape, not the repository itself.
func repoRelative(p, root string) string {
	if p == "" {
		return "the path is empty"
	}
	if strings.ContainsAny(p, "\x00\n\r") {
		return "the path contains a control character"
	}
	if strings.HasPrefix(p, "/") {
		r := path.Clean(root)
		if root == "" || r == "/" {
			return "the path is absolute"
		}
		c := path.Clean(p)
		if !strings.HasPrefix(c, r+"/") {
			return "the path is outside the repository " + r
		}
		p = strings.TrimPrefix(c, r+"/")
	}
	c := path.Clean(p)
	if c == "." {
		return "the path is the repository itself"
	}
	if c == ".." || strings.HasPrefix(c, "../") {
		return "the path leaves the repository through .."
	}
	for _, comp := range strings.Split(c, "/") {
		// A nested .git holds a repository's configuration too, which git obeys when
		// it runs there (a setting may run programs).
		if comp == ".git" {
			return "the path is inside .git"
		}
	}
	return ""
}

// sourceExts are the extensions of source files that touch must not create.
var sourceExts = map[string]bool{
	".c": true, ".h": true, ".cc": true, ".cpp": true, ".cxx": true, ".c++": true, ".hpp": true,
	".hh": true, ".hxx": true, ".h++": true, ".ipp": true, ".tcc": true, ".inl": true, ".go": true,
	".rs": true, ".s": true, ".asm": true, ".m": true, ".mm": true, ".f": true, ".f90": true,
	".f95": true, ".for": true, ".cu": true, ".java": true, ".py": true, ".swift": true,
	".zig": true, ".d": true, ".sx": true,
}

func isSourceFile(p string) bool {
	return sourceExts[strings.ToLower(path.Ext(p))]
}

// repoDir stands for the repository directory, where every command line starts. Its
// name is not known to the rules, only that it lies in /workspace.
const repoDir = "/workspace/\x01repo"

// trackCd follows a cd or pushd of a command line and returns the new working
// directory; other commands leave it unchanged.
func trackCd(c call, cwd string) (string, error) {
	if len(c.args) == 0 || !c.args[0].static() {
		return cwd, nil
	}
	switch c.prog() {
	case "cd", "pushd":
	default:
		return cwd, nil
	}
	ops := parseArgs(c.args[1:], optSpec{}, false).operands
	if len(ops) == 0 {
		return "/root", nil
	}
	return chdirTo(c, cwd, ops[0])
}

// chdirTo checks a change of directory from cwd to d: relative paths after it must not
// name system files, so a system directory, the root and a directory only known at run
// time are refused.
func chdirTo(c call, cwd string, d arg) (string, error) {
	const instead = "stay in the repository: every command starts in its root; use make -C, cmake -S/-B or ninja -C with directories inside it"
	v := d.val()
	if !d.static() || v == "-" || strings.HasPrefix(v, "~") && v != "~" && !strings.HasPrefix(v, "~/") {
		return cwd, reject(ruleSystemWrite, c.text(), "the directory "+shown(v)+" is only known at run time", instead)
	}
	if v == "~" || strings.HasPrefix(v, "~/") {
		v = "/root" + strings.TrimPrefix(v, "~")
	}
	next := v
	if !strings.HasPrefix(v, "/") {
		next = path.Join(cwd, v)
	}
	next = path.Clean(next)
	if next == "/" || isSystemPath(next+"/x", true) {
		return cwd, reject(ruleSystemWrite, c.text(), "it changes into the system directory "+next+", where relative paths name system files", instead)
	}
	return next, nil
}
