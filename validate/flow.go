package validate

import (
	"path"
	"strings"
)

// This file follows what the commands of one line, one plan or one fix did before the
// command being checked: files they wrote or downloaded, symbolic links they made to
// outside the repository, and other repositories they cloned or fetched. Each step may
// be harmless alone; together they run code the rules never saw (download, decode or
// write a script, then run it), write outside the repository through a link, or build
// someone else's code.

// flow is the memory of one line, plan or fix. The zero value is not usable; use newFlow.
type flow struct {
	// written maps the base name of a file the model's commands wrote or downloaded to
	// how it came to be.
	written map[string]string
	// links maps a link the commands made (cleaned, relative to the repository) to its
	// target outside the repository.
	links map[string]string
	// clones are the directories other repositories were cloned into.
	clones map[string]string
	// fetched is set when another repository was fetched or pulled into this one.
	fetched string
	// inClone is set while the current line's working directory is inside a clone.
	inClone string
}

func newFlow() *flow {
	return &flow{written: map[string]string{}, links: map[string]string{}, clones: map[string]string{}}
}

// recordWrite notes a file whose content a command of the model wrote.
func (c call) recordWrite(p string) {
	c.fx.record(p, "written by an earlier command")
}

func (fx *flow) record(p, how string) {
	if fx == nil || p == "" || strings.HasPrefix(p, "/dev/") {
		return
	}
	// Files are followed by base name: the directory part may be spelled many ways
	// ($PWD/x.sh, ./d/../x.sh, an absolute path) and still name the file run later. A
	// name whose last element is itself unknown ($OUT) makes every later run of an
	// unknown name suspect.
	b := path.Base(path.Clean(p))
	if strings.Contains(b, dyn) {
		b = dyn
	}
	if b == "." || b == "/" || b == ".." {
		return
	}
	if _, ok := fx.written[b]; !ok {
		fx.written[b] = how
	}
}

// wrote says how a file named p came to be, when a command of the model wrote it.
func (fx *flow) wrote(p string) (string, bool) {
	if fx == nil || p == "" {
		return "", false
	}
	b := path.Base(path.Clean(p))
	if strings.Contains(b, dyn) {
		how, ok := fx.written[dyn]
		return how, ok
	}
	how, ok := fx.written[b]
	return how, ok
}

// repoKey is a path relative to the repository, or the absolute path.
func repoKey(p string) string {
	c := path.Clean(p)
	return strings.TrimPrefix(c, "./")
}

// outsideTarget reports whether a link target leaves the repository (and /tmp).
func outsideTarget(t string) bool {
	if strings.Contains(t, dyn) {
		return true
	}
	if strings.HasPrefix(t, "/") {
		c := path.Clean(t)
		return !(strings.HasPrefix(c, "/tmp/") || strings.HasPrefix(c, "/workspace/"))
	}
	c := path.Clean(t)
	return c == ".." || strings.HasPrefix(c, "../")
}

func (fx *flow) recordLink(target, name string) {
	if fx == nil || !outsideTarget(target) || strings.Contains(name, dyn) {
		return
	}
	fx.links[repoKey(name)] = target
}

// throughLink reports the link a write or delete of p goes through.
func (fx *flow) throughLink(p string) (string, bool) {
	if fx == nil || len(fx.links) == 0 {
		return "", false
	}
	k := repoKey(p)
	for l := range fx.links {
		if k == l || strings.HasPrefix(k, l+"/") || strings.HasPrefix(p, "/") && strings.HasSuffix(k, "/"+l) {
			return l, true
		}
	}
	return "", false
}

func (fx *flow) recordClone(url, dir string) {
	if fx == nil {
		return
	}
	if dir == "" {
		dir = strings.TrimSuffix(path.Base(strings.TrimRight(url, "/")), ".git")
		if i := strings.LastIndexByte(dir, ':'); i >= 0 {
			dir = dir[i+1:]
		}
	}
	if dir == "" || strings.Contains(dir, dyn) {
		dir = dyn
	}
	fx.clones[repoKey(dir)] = url
}

// inCloneDir reports the clone a path lies in.
func (fx *flow) inCloneDir(p string) (string, bool) {
	if fx == nil || len(fx.clones) == 0 {
		return "", false
	}
	if _, ok := fx.clones[dyn]; ok {
		return "a cloned repository", true
	}
	k := repoKey(p)
	for d := range fx.clones {
		if k == d || strings.HasPrefix(k, d+"/") || strings.Contains(k, "/"+d+"/") || strings.HasSuffix(k, "/"+d) {
			return d, true
		}
	}
	return "", false
}

// buildTools are programs that build (and so run the code of) a source tree.
var buildTools = map[string]bool{
	"make": true, "gmake": true, "cmake": true, "ninja": true, "samu": true, "meson": true,
	"cargo": true, "go": true, "scons": true, "bazel": true, "autoreconf": true, "configure": true,
	"pip": true, "pip3": true, "python": true, "python3": true, "npm": true, "b2": true, "bjam": true,
}

// denyFlowExec refuses running a file the model's own commands wrote or downloaded, and
// building a repository they cloned or fetched. prog is the program (after wrappers);
// scripts are the files it runs as code (a shell's script, make -f, cmake -P, ...).
func denyFlowExec(c call, scripts []arg) error {
	fx := c.fx
	if fx == nil || len(c.args) == 0 {
		return nil
	}
	const instead = "run only files of the package and tools of the distro; do not write, download or decode a script and run it"
	prog := c.args[0].val()
	candidates := scripts
	if strings.Contains(prog, "/") || inPathDir(prog) {
		candidates = append([]arg{c.args[0]}, candidates...)
	}
	for _, s := range candidates {
		for _, v := range s.alts {
			if how, ok := fx.wrote(v); ok {
				return reject(ruleTwoStep, c.text(), shown(v)+" was "+how+" and is now run as code, which the rules never saw", instead)
			}
			if d, ok := fx.inCloneDir(v); ok && (strings.Contains(v, "/") || d == dyn) {
				return reject(ruleTwoStep, c.text(), shown(v)+" is part of the repository cloned into "+shown(d)+", and running it runs code from elsewhere", "port this package only; install dependencies with the distro package manager")
			}
		}
	}
	name := base(prog)
	if buildTools[name] || strings.HasPrefix(prog, "./") {
		if fx.inClone != "" {
			return reject(ruleTwoStep, c.text(), "it builds or runs code of the repository cloned into "+shown(fx.inClone), "port this package only; install dependencies with the distro package manager")
		}
		if fx.fetched != "" {
			return reject(ruleTwoStep, c.text(), "it builds after "+fx.fetched+" brought in code of another repository", "port this package from its own sources; do not fetch or pull other repositories")
		}
		for _, a := range c.args[1:] {
			for _, v := range a.alts {
				_, val, _ := strings.Cut(v, "=")
				for _, p := range []string{v, val} {
					if d, ok := fx.inCloneDir(p); ok && p != "" {
						return reject(ruleTwoStep, c.text(), "it builds the repository cloned into "+shown(d), "port this package only; install dependencies with the distro package manager")
					}
				}
			}
		}
	}
	return nil
}

// inPathDir reports whether a program is found through PATH (a bare name): a file of
// that name the commands wrote into a PATH directory would run.
func inPathDir(name string) bool { return !strings.Contains(name, "/") && name != "" }

// denyWriteThrough refuses a write or delete of p through a link to outside the
// repository that an earlier command made, and writes to the home directory's dotfiles.
func denyWriteThrough(c call, p string) error {
	if l, ok := c.fx.throughLink(p); ok {
		return reject(ruleTwoStep, c.text(), "it writes through the link "+l+" to "+shown(c.fx.links[l])+", outside the repository", "write the files inside the repository; do not link out of it")
	}
	if dotfile(p) {
		return reject(ruleSystemWrite, c.text(), "it writes the configuration file "+shown(p)+" in the home directory, which changes how tools behave for every later command", "pass options on the command line of the tool instead")
	}
	return nil
}

// dotfile reports whether p is (below) a dotfile or dot directory of the home directory,
// other than the caches.
func dotfile(p string) bool {
	if strings.Contains(p, dyn) && !strings.HasPrefix(p, "/root/") {
		return false
	}
	c := path.Clean(p)
	if !strings.HasPrefix(c, "/root/.") {
		return false
	}
	rest := strings.TrimPrefix(c, "/root/")
	first, _, _ := strings.Cut(rest, "/")
	switch first {
	case ".cache", ".ccache":
		return false
	}
	return true
}

// enter notes the working directory of the line: inside a clone, builds are refused.
func (fx *flow) enter(cwd string) {
	if fx == nil || len(fx.clones) == 0 || !strings.HasPrefix(cwd, repoDir+"/") {
		return
	}
	if d, ok := fx.inCloneDir(strings.TrimPrefix(cwd, repoDir+"/")); ok {
		fx.inClone = d
	}
}
