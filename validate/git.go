package validate

import (
	"path"
	"sort"
	"strings"
)

// The rules for git command lines, on top of gitparse.go's reading of them the way git
// does: environment variables and configuration keys that run programs or redirect
// transport, paths held to the repository, history-rewriting and program-running
// subcommands.

// gitRedirectEnv are variables that change where or how git connects, or which
// programs it asks for credentials.
var gitRedirectEnv = map[string]bool{
	"GIT_SSL_NO_VERIFY": true, "GIT_SSL_CAINFO": true, "GIT_SSL_CAPATH": true, "GIT_SSL_CERT": true,
	"GIT_SSL_KEY": true, "GIT_SSL_CERT_PASSWORD_PROTECTED": true, "GIT_SSL_CIPHER_LIST": true,
	"GIT_SSL_VERSION": true, "GIT_HTTP_PROXY_AUTHMETHOD": true, "GIT_PROXY_SSL_CERT": true,
	"GIT_PROXY_SSL_KEY": true, "GIT_PROXY_SSL_CAINFO": true, "GIT_PROXY_SSL_CERT_PASSWORD_PROTECTED": true,
	"GIT_SEQUENCE_EDITOR": true, "SSH_ASKPASS": true, "GIT_SSH_VARIANT": true, "GIT_PROTOCOL_FROM_USER": true,
}

// gitLocationEnv are variables that point git at a repository, work tree or
// configuration somewhere else.
var gitLocationEnv = map[string]string{
	"GIT_DIR": "git dir", "GIT_WORK_TREE": "work tree", "GIT_COMMON_DIR": "git dir",
	"GIT_OBJECT_DIRECTORY": "object directory", "GIT_ALTERNATE_OBJECT_DIRECTORIES": "object directory",
}

// denyGitEnv checks an assignment that git reads: configuration given through the
// environment (GIT_CONFIG_KEY_<n>, GIT_CONFIG), the repository and work tree, trace
// files, and variables that change where or how git connects. It applies to every
// assignment, since an exported variable reaches every later git of the line.
func denyGitEnv(name string, v arg, subject string) error {
	switch {
	case strings.HasPrefix(name, "GIT_CONFIG_KEY_"):
		for _, k := range v.alts {
			if v.dynamic {
				return reject(ruleArgs, subject, "the git setting "+shown(k)+" is only known at run time", "run plain git subcommands without extra configuration")
			}
			if why := gitConfigRisk(k); why != "" {
				return reject(ruleArgs, subject, "the git setting "+shown(k)+" "+why, "run plain git subcommands without extra configuration")
			}
		}
	case name == "GIT_CONFIG" || name == "GIT_INDEX_FILE" || strings.HasPrefix(name, "GIT_TRACE"):
		for _, p := range v.alts {
			if p == "" || p == "0" || p == "1" || p == "2" || strings.EqualFold(p, "true") || strings.EqualFold(p, "false") {
				continue
			}
			if isSystemPath(p, true) || strings.Contains(p, dyn) || dotfile(p) {
				return reject(ruleSystemWrite, subject, name+"="+shown(p)+" makes git write to a file outside the repository", "leave "+name+" unset")
			}
		}
	case gitRedirectEnv[name]:
		return reject(ruleArgs, subject, "setting "+name+" changes where or how git connects, or which program it runs", "run plain git commands without it")
	case gitLocationEnv[name] != "":
		for _, p := range v.alts {
			if why := gitPathProblem(p, repoDir); why != "" {
				return reject(rulePath, subject, name+"="+shown(p)+" puts the "+gitLocationEnv[name]+" "+why, "run git in the repository itself, with no "+name)
			}
		}
	}
	return nil
}

// gitPathProblem checks a git dir, work tree or directory git is pointed at from the
// directory base: it must lie inside the repository (relative without a .. escape, or
// absolute below /workspace).
func gitPathProblem(p, base string) string {
	if strings.Contains(p, dyn) {
		return "at a place only known at run time"
	}
	if p == "" {
		return ""
	}
	full := p
	if !strings.HasPrefix(p, "/") {
		full = path.Join(base, p)
	}
	full = path.Clean(full)
	if full == repoDir || strings.HasPrefix(full, repoDir+"/") || strings.HasPrefix(full, "/workspace/") && !strings.HasPrefix(full, "/workspace/\x01") {
		return ""
	}
	return "outside the repository (" + shown(strings.ReplaceAll(full, repoDir, "<repo>")) + ")"
}

// gitConfigSections are configuration sections whose settings run programs (aliases,
// pagers, filters, credential helpers, signing programs, tools, mailers), include other
// configuration, or change where and how git connects (URL rewriting, protocol
// permissions, ssh, bundles, promisor remotes), or write trace files.
var gitConfigSections = map[string]string{
	"alias": "runs commands", "pager": "runs a pager program", "include": "includes other configuration",
	"includeif": "includes other configuration", "filter": "runs filter programs", "credential": "runs credential helper programs",
	"gpg": "runs a signing program", "protocol": "changes which transports git may use", "url": "rewrites the URLs git connects to",
	"sendemail": "runs a mail program", "imap": "runs a tunnel program", "difftool": "runs diff tools", "mergetool": "runs merge tools",
	"browser": "runs a browser program", "man": "runs a manual viewer", "instaweb": "runs a web server", "guitool": "runs tools",
	"trace2": "writes trace files", "ssh": "changes how git connects over ssh", "bundle": "changes where git downloads from",
	"promisor": "changes which remotes git fetches from", "hook": "runs hook commands", "web": "runs a browser program",
	"uploadpack": "runs programs", "receive": "runs programs", "credentialcache": "runs credential helpers",
}

// gitConfigKeys are single settings of that kind in other sections.
var gitConfigKeys = map[string]string{
	"core.sshcommand": "runs an ssh program", "core.fsmonitor": "runs a monitor program", "core.hookspath": "runs hooks from another directory",
	"core.pager": "runs a pager program", "core.editor": "runs an editor", "core.askpass": "runs a password program",
	"core.gitproxy": "runs a proxy program", "core.alternaterefscommand": "runs a command", "core.worktree": "moves the work tree",
	"core.attributesfile": "reads attributes from another file", "core.excludesfile": "",
	"diff.external": "runs an external diff program", "diff.tool": "runs a diff tool", "merge.tool": "runs a merge tool",
	"sequence.editor": "runs an editor", "init.templatedir": "copies hooks from a template", "gc.recentobjectshook": "runs a command",
	"help.browser": "runs a browser program", "help.autocorrect": "runs a corrected command", "fetch.bundleuri": "changes where git downloads from",
	"transfer.bundleuri": "changes where git downloads from", "http.proxy": "sends git's traffic through a proxy",
	"core.sshcommandvariant": "changes how git connects over ssh", "safe.directory": "",
}

// gitConfigLast are last components of settings, in any section, whose value is a
// program or command (diff.<driver>.command, merge.<driver>.driver, remote.<name>.vcs),
// a hook directory or included file, or where and how git connects
// (remote.<name>.uploadpack, .receivepack, .proxy, .url, submodule.<name>.update).
var gitConfigLast = map[string]string{
	"cmd": "runs a command", "command": "runs a command", "program": "runs a program", "helper": "runs a helper program",
	"driver": "runs a driver program", "textconv": "runs a conversion program", "clean": "runs a filter program",
	"smudge": "runs a filter program", "process": "runs a filter program", "editor": "runs an editor", "pager": "runs a pager program",
	"hookspath": "runs hooks from another directory", "fsmonitor": "runs a monitor program", "gitproxy": "runs a proxy program",
	"askpass": "runs a password program", "sshcommand": "runs an ssh program", "uploadpack": "runs a program on the remote side",
	"receivepack": "runs a program on the remote side", "packobjectshook": "runs a command", "vcs": "runs a remote helper program",
	"templatedir": "copies hooks from a template", "path": "names a program or an included file", "allow": "changes which transports git may use",
	"difffilter": "runs a filter program", "external": "runs an external program", "proxycommand": "runs a proxy program",
	"variant": "changes how git connects", "tool": "runs a tool", "browser": "runs a browser program", "proxy": "sends git's traffic through a proxy",
	"url": "changes where git fetches from", "pushurl": "changes where git pushes to", "insteadof": "rewrites the URLs git connects to",
	"pushinsteadof": "rewrites the URLs git connects to", "update": "may run a command instead of checking out", "bundleuri": "changes where git downloads from",
	"sslverify": "turns off TLS verification", "sslcainfo": "changes which certificates git trusts", "sslcapath": "changes which certificates git trusts",
	"sslcert": "changes how git authenticates", "sslkey": "changes how git authenticates", "curloptresolve": "changes where git connects",
	"cookiefile": "reads cookies from a file", "savecookies": "writes cookies to a file", "extraheader": "adds headers to git's requests",
	"proxysslcert": "changes how git connects", "proxysslkey": "changes how git connects", "proxysslcainfo": "changes which certificates git trusts",
	"sslbackend": "changes how git connects", "schannelcheckrevoke": "changes how git connects", "pinnedpubkey": "changes which certificates git trusts",
	"delegation": "changes how git authenticates", "emptyauth": "changes how git authenticates", "proxyauthmethod": "changes how git connects",
	"unixsocket": "changes where git connects", "followredirects": "changes where git connects", "sslversion": "changes how git connects",
	"sslcipherlist": "changes how git connects", "sslcertpasswordprotected": "changes how git authenticates",
}

// gitConfigRisk says why setting the git configuration key k (given as "key" or
// "key=value", as -c and GIT_CONFIG_KEY_<n> take it) is refused, or "" when it is not.
// Section and variable names are case-insensitive in git; the subsection between them
// is not, but it never decides.
func gitConfigRisk(k string) string {
	k, _, _ = strings.Cut(strings.TrimSpace(k), "=")
	k = strings.ToLower(k)
	if k == "" {
		return ""
	}
	if strings.Contains(k, dyn) {
		return "is only known at run time"
	}
	first, _, _ := strings.Cut(k, ".")
	last := k
	if i := strings.LastIndexByte(k, '.'); i >= 0 {
		last = k[i+1:]
	}
	if why := gitConfigSections[first]; why != "" {
		return why
	}
	two := first + "." + last
	if why, ok := gitConfigKeys[two]; ok {
		return why
	}
	if why := gitConfigLast[last]; why != "" {
		return why
	}
	return ""
}

// gitCodeKey reports whether setting the git configuration key k can make git run a
// program or change where and how it connects.
func gitCodeKey(k string) bool { return gitConfigRisk(k) != "" }

// gitRunsProgram are the options, per subcommand, whose value is a program git runs (on
// this machine or, for upload-pack and receive-pack, through the transport).
var gitRunsProgram = map[string][]string{
	"clone": {"--upload-pack", "--template"}, "fetch": {"--upload-pack"}, "pull": {"--upload-pack"},
	"ls-remote": {"--upload-pack", "--exec"}, "archive": {"--exec", "--remote"}, "fetch-pack": {"--upload-pack", "--exec"},
	"send-pack": {"--receive-pack", "--exec"}, "push": {"--receive-pack", "--exec"}, "init": {"--template"}, "init-db": {"--template"},
	"grep": {"--open-files-in-pager"}, "difftool": {"--extcmd"}, "rebase": {"--exec"}, "submodule--helper": {"--upload-pack"},
}

// gitRefused are subcommands that run arbitrary commands or programs the rules cannot
// see, or reach outside the repository.
var gitRefused = map[string]string{
	"filter-branch":  "it rewrites the history and runs shell commands",
	"filter-repo":    "it rewrites the history",
	"instaweb":       "it starts a web server",
	"web--browse":    "it runs a browser program",
	"send-email":     "it sends mail and runs mail programs",
	"remote-ext":     "it runs its URL as a command",
	"remote-fd":      "it talks to file descriptors the rules cannot see",
	"for-each-repo":  "it runs git in other repositories",
	"hook":           "it runs hooks",
	"credential":     "it runs credential helpers",
	"daemon":         "it starts a server",
	"shell":          "it runs commands for a remote user",
	"upload-archive": "it serves archives to a remote",
}

// denyGit applies the git rules to one git command: configuration settings that run
// programs or redirect transport, options whose value is a program, the work tree, git
// dir and target directories held to the repository, outputs, and the subcommands that
// throw away earlier fixes or rewrite history.
func denyGit(c call, args []arg, strict bool) error {
	l := parseGit(args)
	if l.unknownTop != "" {
		return reject(ruleArgs, c.text(), "git has no option "+shown(l.unknownTop)+" before the subcommand", "write git <subcommand> [options], such as git -C sub status")
	}
	for _, kv := range l.top["-c"] {
		if why := gitConfigRisk(kv.val()); why != "" || kv.dynamic {
			if why == "" {
				why = "is only known at run time"
			}
			return reject(ruleArgs, c.text(), "git -c "+shown(kv.val())+": the setting "+why, "run plain git subcommands without -c")
		}
	}
	for _, kv := range l.top["--config-env"] {
		if why := gitConfigRisk(kv.val()); why != "" || kv.dynamic {
			return reject(ruleArgs, c.text(), "git --config-env "+shown(kv.val())+" sets configuration from the environment that may run programs", "run plain git subcommands without --config-env")
		}
	}
	if len(l.top["--exec-path"]) > 0 && len(l.top["--exec-path"][0].val()) > 0 {
		return reject(ruleArgs, c.text(), "git --exec-path= runs git's programs from another directory", "run plain git subcommands")
	}
	for name := range c.assigns {
		if name == "HOME" || name == "XDG_CONFIG_HOME" || strings.HasPrefix(name, "GIT_CONFIG") && name != "GIT_CONFIG_NOSYSTEM" && !strings.HasPrefix(name, "GIT_CONFIG_KEY_") && !strings.HasPrefix(name, "GIT_CONFIG_VALUE_") && name != "GIT_CONFIG_COUNT" {
			return reject(ruleArgs, c.text(), "setting "+name+" makes git read another configuration, which may run programs", "run git with the sandbox's own configuration")
		}
	}
	// The directory git works in: -C, then the work tree and git dir relative to it.
	base := repoDir
	for _, d := range l.top["-C"] {
		v := d.val()
		if v == "" && d.static() {
			continue
		}
		if !d.static() {
			return reject(rulePath, c.text(), "git -C "+shown(v)+" is only known at run time", "write the directory literally, such as git -C sub status")
		}
		next := v
		if !strings.HasPrefix(v, "/") {
			next = path.Join(base, v)
		}
		if strict && escapesRepo(v) {
			return reject(rulePath, c.text(), "git -C "+shown(v)+" leaves the repository", "run git in the repository or a directory inside it, such as git -C sub status")
		}
		if why := gitPathProblem(next, base); why != "" {
			if strict || isSystemPath(path.Clean(next)+"/x", true) || path.Clean(next) == "/" {
				return reject(rulePath, c.text(), "git -C "+shown(v)+" runs git "+why, "run git in the repository or a directory inside it, such as git -C sub status")
			}
		}
		base = path.Clean(next)
	}
	for _, name := range []string{"--work-tree", "--git-dir"} {
		for _, d := range l.top[name] {
			if why := gitPathProblem(d.val(), base); why != "" {
				return reject(rulePath, c.text(), "git "+name+" "+shown(d.val())+" puts the "+strings.TrimPrefix(name, "--")+" "+why, "run git in the repository itself, without "+name)
			}
		}
	}
	if len(c.fx.gitConfigWritten()) > 0 {
		return reject(ruleTwoStep, c.text(), "an earlier step wrote "+c.fx.gitConfigWritten()+", which git reads as configuration (a setting there can run programs)", "change git settings only with plain git commands, and do not write git's configuration files")
	}
	if !l.hasSub {
		return nil
	}
	sub := l.sub
	if !sub.static() {
		return reject(ruleLiteralProgram, c.text(), "the git subcommand is only known at run time", "write the git subcommand literally")
	}
	name := sub.val()
	ga := l.args
	if ga.dynamicOption != "" {
		return reject(ruleArgs, c.text(), "the git argument "+shown(ga.dynamicOption)+" is only known at run time and could be any option", "write git options literally")
	}
	if why, ok := gitRefused[name]; ok {
		return reject(ruleDenied, c.text(), "git "+name+" is not allowed: "+why, "build and fix the package with plain git commands")
	}
	for _, o := range gitRunsProgram[name] {
		if ga.has(o) {
			return reject(ruleArgs, c.text(), "git "+name+" "+o+" runs another program", "run the plain git subcommand")
		}
	}
	for _, kv := range ga.values("--config") {
		if name != "clone" && name != "submodule--helper" {
			break
		}
		if why := gitConfigRisk(kv.val()); why != "" || kv.dynamic {
			if why == "" {
				why = "is only known at run time"
			}
			return reject(ruleArgs, c.text(), "git "+name+" --config "+shown(kv.val())+": the setting "+why, "clone without --config")
		}
	}
	if err := denyGitPaths(c, name, ga, base, strict); err != nil {
		return err
	}
	return denyGitHistory(c, name, ga, strict)
}

// denyGitPaths holds what git writes and where it works to the repository: outputs,
// apply and am directories, new repositories, work trees and separate git dirs.
func denyGitPaths(c call, name string, ga gitArgs, base string, strict bool) error {
	outs := ga.values("--output", "--output-directory")
	if name == "checkout-index" {
		outs = append(outs, ga.values("--prefix")...)
	}
	if name == "apply" {
		outs = append(outs, ga.values("--build-fake-ancestor")...)
	}
	if name == "bundle" && len(ga.operands) >= 2 && ga.operands[0].val() == "create" {
		outs = append(outs, ga.operands[1])
	}
	if name == "clone" && len(ga.operands) >= 2 {
		outs = append(outs, ga.operands[1])
	}
	if err := checkWrites(c, outs, strict); err != nil {
		return err
	}
	switch name {
	case "apply", "am":
		if ga.has("--unsafe-paths") {
			return reject(rulePath, c.text(), "git "+name+" --unsafe-paths writes files outside the repository", "apply patches to files of the repository, such as git apply -p1 fix.patch")
		}
		for _, d := range ga.values("--directory") {
			for _, v := range d.alts {
				if strings.HasPrefix(v, "/") || strings.Contains(v, dyn) || escapesRepo(v) {
					return reject(rulePath, c.text(), "git "+name+" --directory="+shown(v)+" puts the patched files outside the repository", "give a directory relative to the repository root, such as --directory=src")
				}
			}
		}
	}
	var dirs []arg
	switch name {
	case "clone", "init", "init-db":
		dirs = append(dirs, ga.values("--separate-git-dir")...)
		if name != "clone" && len(ga.operands) > 0 {
			dirs = append(dirs, ga.operands[0])
		}
	case "worktree":
		if len(ga.operands) >= 2 && ga.operands[0].val() == "add" {
			dirs = append(dirs, ga.operands[1])
		}
		if len(ga.operands) >= 3 && ga.operands[0].val() == "move" {
			dirs = append(dirs, ga.operands[2])
		}
	}
	for _, d := range dirs {
		for _, v := range d.alts {
			if why := gitPathProblem(v, base); why != "" {
				return reject(rulePath, c.text(), "git "+name+" puts a repository or work tree "+why, "keep repositories and work trees inside the repository")
			}
		}
	}
	return nil
}

// denyGitHistory refuses the subcommands and options that publish, rewrite history, or
// throw away the work tree with the fixes made so far, and configuration writes of
// settings that run programs.
func denyGitHistory(c call, name string, ga gitArgs, strict bool) error {
	const insteadOne = "undo one file with git checkout -- <file>, or fix it with a patch"
	ops := ga.operands
	switch name {
	case "push":
		return reject(ruleGitHistory, c.text(), "git push publishes changes to a remote", "keep changes local; Atesor records patches itself")
	case "clean":
		return reject(ruleGitHistory, c.text(), "git clean deletes untracked files, including build inputs and earlier fixes", "remove named build directories, such as rm -rf build")
	case "reset":
		for _, o := range []string{"--hard", "--merge", "--keep"} {
			if ga.has(o) {
				return reject(ruleGitHistory, c.text(), "git reset "+o+" throws away the work tree and earlier fixes", insteadOne)
			}
		}
	case "checkout", "restore", "switch":
		for _, o := range []string{"--force", "--discard-changes"} {
			if ga.has(o) {
				return reject(ruleGitHistory, c.text(), "git "+name+" "+o+" throws away the work tree and earlier fixes", insteadOne)
			}
		}
		for _, a := range ops {
			v := a.val()
			if v == "." || v == "./" || v == ":/" || v == "*" || v == ":" || a.glob && !strings.Contains(v, "/") || a.dynamic || strings.HasPrefix(v, ":(") || strings.HasPrefix(v, ":/") {
				return reject(ruleGitHistory, c.text(), "git "+name+" "+shown(v)+" throws away every change of the work tree, including earlier fixes", insteadOne)
			}
		}
	case "stash":
		if len(ops) == 0 || !(ops[0].val() == "list" || ops[0].val() == "show") {
			return reject(ruleGitHistory, c.text(), "git stash takes earlier fixes out of the work tree", insteadOne)
		}
	case "config":
		return denyGitConfig(c, ga, strict)
	case "reflog":
		if len(ops) > 0 && (ops[0].val() == "expire" || ops[0].val() == "delete") {
			return reject(ruleGitHistory, c.text(), "it rewrites the history", "leave the reflog alone")
		}
	case "submodule":
		for _, a := range ops {
			if a.val() == "foreach" {
				return reject(ruleArgs, c.text(), "git submodule foreach runs arbitrary commands", "use git submodule update --init --recursive")
			}
		}
	case "bisect":
		if len(ops) > 0 && ops[0].val() == "run" {
			return reject(ruleArgs, c.text(), "git bisect run runs arbitrary commands", "run the command directly")
		}
	case "maintenance":
		if len(ops) > 0 && (ops[0].val() == "start" || ops[0].val() == "register") {
			return reject(ruleSystemWrite, c.text(), "git maintenance "+ops[0].val()+" changes the system's scheduler", "leave maintenance alone")
		}
	}
	return nil
}

// denyGitConfig refuses git config writes of settings that run programs or redirect
// transport, renames of sections (which turn harmless settings into such settings), and
// writes to a configuration file in a system directory.
func denyGitConfig(c call, ga gitArgs, strict bool) error {
	if err := checkWrites(c, ga.values("--file"), strict); err != nil {
		return err
	}
	ops := ga.operands
	mode := ""
	if len(ops) > 0 {
		switch v := ops[0].val(); v {
		case "get", "list", "set", "unset", "rename-section", "remove-section", "edit":
			mode = v
			ops = ops[1:]
		}
	}
	if mode == "rename-section" || ga.has("--rename-section") {
		return reject(ruleArgs, c.text(), "renaming a configuration section can turn harmless settings into settings that run programs", "leave git configuration alone; only safe.directory may be added")
	}
	if mode == "get" || mode == "list" || mode == "unset" || mode == "remove-section" ||
		ga.has("--list", "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--unset", "--unset-all", "--remove-section", "--get-color", "--get-colorbool") {
		return nil
	}
	if mode == "edit" || ga.has("--edit") {
		return reject(ruleArgs, c.text(), "git config --edit runs an editor", "set one setting with git config <key> <value>")
	}
	if len(ops) >= 2 || mode == "set" && len(ops) >= 1 || ga.has("--add", "--replace-all") && len(ops) >= 1 {
		k := ops[0]
		if k.dynamic {
			return reject(ruleArgs, c.text(), "the git setting "+shown(k.val())+" is only known at run time", "write the setting's name literally")
		}
		if why := gitConfigRisk(k.val()); why != "" {
			return reject(ruleArgs, c.text(), "the git setting "+shown(k.val())+" "+why, "leave git configuration alone; only safe.directory may be added")
		}
	}
	return nil
}

// gitConfigWritten names a file an earlier command of the line, plan or fix wrote
// that git reads as configuration (a repository's config, a .gitconfig), or "".
func (fx *flow) gitConfigWritten() string {
	if fx == nil {
		return ""
	}
	var names []string
	for _, n := range []string{"config", ".gitconfig", "gitconfig", "config.worktree", "HEAD"} {
		if _, ok := fx.written[n]; ok {
			names = append(names, "a file named "+n)
		}
	}
	sort.Strings(names)
	return strings.Join(names, " and ")
}
