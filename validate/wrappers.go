package validate

import (
	"strings"

	"github.com/eclipse-atesor/atesor-go/internal/shellwords"
)

// This file unwraps programs that run other programs (sudo, env, nice, timeout, strace,
// qemu-riscv64, the dynamic loader, busybox, watch, ...): the rules check the command
// they run. Programs that run a command in another root or namespace, under a debugger,
// or from their input (chroot, unshare, nsenter, gdb, parallel, script without -c) are
// refused, since the command or what its paths mean cannot be known.

// wrapper describes one program that runs another.
type wrapper struct {
	spec optSpec
	// skip is how many operands come before the command (timeout DURATION, flock FILE).
	skip int
	// strings are the options whose value is a shell command line (su -c, flock -c).
	strings []string
	// done are options with which the program runs no command (command -v, taskset -p).
	done []string
	// refuse says why the program is refused; "" unwraps it.
	refuse string
	// joined is true when the program joins its operands into one shell string (watch).
	joined string
}

// wrappers is the table of programs that run programs, by base name.
var wrappers = map[string]wrapper{
	"sudo": {spec: optSpec{short: "ugCDhprtUT", shortFlags: "AbEeHiKklnPSsVv", closed: true,
		long:  []string{"--user", "--group", "--close-from", "--chdir", "--host", "--prompt", "--role", "--type", "--other-user", "--command-timeout"},
		flags: []string{"--askpass", "--background", "--bell", "--preserve-env", "--edit", "--set-home", "--login", "--non-interactive", "--preserve-groups", "--remove-timestamp", "--reset-timestamp", "--stdin", "--shell", "--validate", "--list", "--version", "--help"}}},
	"doas":      {spec: optSpec{short: "uC", shortFlags: "ns", closed: true}},
	"nice":      {spec: optSpec{short: "n", long: []string{"--adjustment"}, flags: []string{"--help", "--version"}, closed: true}},
	"nohup":     {spec: optSpec{flags: []string{"--help", "--version"}, closed: true}},
	"setsid":    {spec: optSpec{shortFlags: "cfw", flags: []string{"--ctty", "--fork", "--wait"}, closed: true}},
	"stdbuf":    {spec: optSpec{short: "ioe", long: []string{"--input", "--output", "--error"}, closed: true}},
	"ionice":    {spec: optSpec{short: "cnp", shortFlags: "t", long: []string{"--class", "--classdata", "--pid"}, flags: []string{"--ignore"}, closed: true}},
	"timeout":   {skip: 1, spec: optSpec{short: "sk", shortFlags: "fpv", long: []string{"--signal", "--kill-after"}, flags: []string{"--foreground", "--preserve-status", "--verbose"}, closed: true}},
	"taskset":   {skip: 1, done: []string{"p", "--pid"}, spec: optSpec{shortFlags: "acp", flags: []string{"--all-tasks", "--cpu-list", "--pid"}, closed: true}},
	"chrt":      {skip: 1, done: []string{"p", "--pid", "m", "--max"}, spec: optSpec{short: "T", shortFlags: "bdefiopmRrv", long: []string{"--sched-runtime", "--sched-period", "--sched-deadline"}, flags: []string{"--batch", "--deadline", "--fifo", "--idle", "--other", "--rr", "--reset-on-fork", "--all-tasks", "--pid", "--max", "--verbose"}, closed: true}},
	"time":      {spec: optSpec{short: "fo", shortFlags: "apqv", long: []string{"--format", "--output"}, flags: []string{"--append", "--portability", "--quiet", "--verbose"}, closed: true}},
	"exec":      {spec: optSpec{short: "a", shortFlags: "cl", closed: true}},
	"command":   {done: []string{"v", "V"}, spec: optSpec{shortFlags: "pvV", closed: true}},
	"builtin":   {},
	"fakeroot":  {spec: optSpec{short: "ils", shortFlags: "u", long: []string{"--lib", "--faked", "-i", "-s"}, flags: []string{"--unknown-is-real"}, closed: true}},
	"unbuffer":  {spec: optSpec{shortFlags: "p", closed: true}},
	"catchsegv": {},
	"nocache":   {},
	"eatmydata": {},
	"busybox":   {},
	"toybox":    {},
	"linux32":   {spec: optSpec{shortFlags: "vRFZLXBIST3", closed: true}},
	"linux64":   {spec: optSpec{shortFlags: "vRFZLXBIST3", closed: true}},
	"setarch":   {skip: 1, spec: optSpec{shortFlags: "vRFZLXBIST3", flags: []string{"--verbose", "--addr-no-randomize", "--fdpic-funcptrs", "--mmap-page-zero", "--addr-compat-layout", "--read-implies-exec", "--32bit", "--short-inode", "--whole-seconds", "--sticky-timeouts", "--3gb", "--4gb", "--uname-2.6", "--list"}, closed: true}},
	"setpriv": {spec: optSpec{shortFlags: "d", closed: true,
		long:  []string{"--reuid", "--regid", "--groups", "--inh-caps", "--ambient-caps", "--bounding-set", "--securebits", "--pdeathsig", "--selinux-label", "--apparmor-profile", "--landlock-access", "--landlock-rule", "--ruid", "--euid", "--rgid", "--egid"},
		flags: []string{"--dump", "--clear-groups", "--keep-groups", "--init-groups", "--list-caps", "--no-new-privs", "--reset-env"}}},
	"runuser": {strings: []string{"-c", "--command", "--session-command"}, spec: optSpec{short: "ugGcsw", shortFlags: "lmpfP", closed: true,
		long:  []string{"--user", "--group", "--supp-group", "--command", "--session-command", "--shell", "--whitelist-environment"},
		flags: []string{"--login", "--preserve-environment", "--fast", "--pty"}}},
	"su": {strings: []string{"-c", "--command", "--session-command"}, spec: optSpec{short: "cgGsw", shortFlags: "lmpfP", closed: true,
		long:  []string{"--command", "--group", "--supp-group", "--shell", "--whitelist-environment", "--session-command"},
		flags: []string{"--login", "--preserve-environment", "--fast", "--pty"}}},
	"flock": {skip: 1, strings: []string{"-c", "--command"}, spec: optSpec{short: "wEc", shortFlags: "sxnuoFv", closed: true,
		long:  []string{"--timeout", "--wait", "--conflict-exit-code", "--command"},
		flags: []string{"--shared", "--exclusive", "--nonblock", "--nb", "--unlock", "--close", "--no-fork", "--verbose"}}},
	"script": {strings: []string{"-c", "--command"}, spec: optSpec{short: "cEIOBTm", shortFlags: "aefqt", closed: true,
		long:  []string{"--command", "--echo", "--log-in", "--log-out", "--log-io", "--log-timing", "--logging-format", "--output-limit", "--timing"},
		flags: []string{"--append", "--return", "--flush", "--force", "--quiet"}}},
	"strace": {spec: optSpec{short: "abeEIoOpPsSuUX", shortFlags: "AcCdDfFhiknqrtTvVwxyYzZ", closed: true,
		long:  []string{"--output", "--signal", "--trace", "--user", "--env", "--attach", "--trace-path", "--string-limit", "--summary-sort-by"},
		flags: []string{"--follow-forks", "--output-separately", "--summary-only", "--summary", "--quiet", "--silent"}}},
	"ltrace": {spec: optSpec{short: "aAeDFlLnopsuxX", shortFlags: "bCfhiStTrV", closed: true,
		long:  []string{"--output", "--library", "--align", "--indent", "--config"},
		flags: []string{"--demangle", "--no-signals", "--help", "--version"}}},
	"valgrind":         {spec: optSpec{shortFlags: "qv", closed: false}},
	"xvfb-run":         {spec: optSpec{short: "efnpsw", shortFlags: "ahl", long: []string{"--error-file", "--xauth-protocol", "--server-num", "--server-args", "--wait"}, flags: []string{"--auto-servernum", "--help", "--listen-tcp"}, closed: true}},
	"dbus-run-session": {spec: optSpec{long: []string{"--config-file", "--dbus-daemon"}, closed: true}},
	"prlimit":          {spec: optSpec{short: "p", shortFlags: "", long: []string{"--pid", "--output", "--core", "--data", "--nice", "--fsize", "--sigpending", "--memlock", "--rss", "--nofile", "--msgqueue", "--rtprio", "--stack", "--cpu", "--nproc", "--as", "--locks", "--rttime"}, flags: []string{"--noheadings", "--raw", "--verbose"}}},
	"numactl":          {spec: optSpec{short: "CNmipP", long: []string{"--cpunodebind", "--physcpubind", "--membind", "--interleave", "--preferred", "--preferred-many", "--localalloc"}, shortFlags: "lH", closed: true}},
	"faketime":         {skip: 1, spec: optSpec{short: "m", shortFlags: "f", closed: true}},
	"xargs": {spec: optSpec{short: "adEeIiLlnPs", shortFlags: "0prtx", closed: true,
		long:  []string{"--arg-file", "--delimiter", "--eof", "--replace", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"},
		flags: []string{"--null", "--no-run-if-empty", "--interactive", "--verbose", "--exit", "--show-limits", "--open-tty"}}},
	"watch": {joined: "watch runs its command through sh -c", spec: optSpec{short: "dnq", shortFlags: "bcegptwhvrx", closed: true,
		long:  []string{"--differences", "--interval", "--equexit", "--shotsfile"},
		flags: []string{"--beep", "--color", "--no-color", "--errexit", "--chgexit", "--precise", "--no-title", "--no-wrap", "--exec", "--no-rerun", "--help", "--version"}}},

	"chroot":            {refuse: "it runs a command in another root directory, where the rules cannot tell what its paths name"},
	"unshare":           {refuse: "it runs a command in new namespaces, where mounts and paths differ from what the rules see"},
	"nsenter":           {refuse: "it runs a command in another process's namespaces"},
	"bwrap":             {refuse: "it runs a command in another mount namespace"},
	"proot":             {refuse: "it runs a command in another root directory"},
	"fakechroot":        {refuse: "it runs a command in another root directory"},
	"firejail":          {refuse: "it runs a command in another namespace"},
	"systemd-nspawn":    {refuse: "it runs a container"},
	"systemd-run":       {refuse: "it starts a service outside the command"},
	"gdb":               {refuse: "a debugger runs commands given in its options and scripts"},
	"lldb":              {refuse: "a debugger runs commands given in its options and scripts"},
	"parallel":          {refuse: "it builds its commands from its input, which the rules cannot read"},
	"ssh":               {refuse: "it runs commands on another machine"},
	"expect":            {refuse: "it runs a Tcl script"},
	"tmux":              {refuse: "it runs commands in a terminal multiplexer"},
	"screen":            {refuse: "it runs commands in a terminal multiplexer"},
	"at":                {refuse: "it schedules commands from its input"},
	"batch":             {refuse: "it schedules commands from its input"},
	"crontab":           {refuse: "it schedules commands"},
	"pkexec":            {refuse: "it runs a command as another user"},
	"capsh":             {refuse: "it runs a shell with changed capabilities"},
	"start-stop-daemon": {refuse: "it starts a daemon"},
	"daemonize":         {refuse: "it starts a daemon"},
	"sg":                {refuse: "it runs a command string as another group"},
	"newgrp":            {refuse: "it starts a shell as another group"},
	"env-update":        {refuse: "it changes the system environment"},
}

// ldsoSpec is the option table of the dynamic loader run as a program.
var ldsoSpec = optSpec{long: []string{"--library-path", "--inhibit-rpath", "--audit", "--preload", "--argv0", "--glibc-hwcaps-prepend", "--glibc-hwcaps-mask"}, flags: []string{"--list", "--verify", "--inhibit-cache", "--list-tunables", "--list-diagnostics", "--help", "--version"}, exact: true, closed: true}

// qemu's user-mode emulators take single-dash long options.
var (
	qemuValue   = map[string]bool{"-L": true, "-s": true, "-cpu": true, "-0": true, "-r": true, "-g": true, "-B": true, "-R": true, "-p": true, "-seed": true, "-dfilter": true}
	qemuFlag    = map[string]bool{"-one-insn-per-tb": true, "-singlestep": true, "-strace": true, "-version": true, "-h": true, "-help": true}
	qemuRefused = map[string]bool{"-plugin": true, "-d": true, "-D": true, "-E": true, "-U": true, "-trace": true}
)

// isLoader reports whether a program is the dynamic loader (ld.so, ld-linux-*.so.N).
func isLoader(name string) bool {
	return name == "ld.so" || strings.HasPrefix(name, "ld-linux") || strings.HasPrefix(name, "ld64.so") ||
		strings.HasPrefix(name, "ld-") && strings.Contains(name, ".so")
}

// unwrap strips wrapper programs (sudo, env, nice, ...) and returns the command they run.
// nested holds shell strings (sh -c, eval, su -c, env -S, watch) to parse as command
// lines. done is true when the wrapper runs no command. A shell that reads its commands
// from standard input gets the here-document of the statement as a nested string; reading
// a pipe or a file is refused, since the commands cannot be checked.
func unwrap(c call) (inner call, nested []arg, done bool, err error) {
	for guard := 0; guard < 32; guard++ {
		if len(c.args) == 0 {
			return c, nested, true, nil
		}
		p := c.args[0]
		if !p.static() {
			return c, nested, false, reject(ruleLiteralProgram, c.text(), "the program name is only known at run time", "write the program name literally")
		}
		name := base(p.val())
		rest := c.args[1:]
		next := func(args []arg) {
			in := c.stdin
			c = c.sub(args)
			c.stdin = in
		}
		unknownOpt := func(pa parsedArgs) error {
			if len(pa.unknown) > 0 && !strings.HasPrefix(name, "valgrind") {
				return reject(ruleDenied, c.text(), name+" "+pa.unknown[0]+" is an option the rules do not know, so they cannot tell which command it runs", "run the command directly, without "+name)
			}
			return nil
		}
		if w, ok := wrappers[name]; ok {
			if w.refuse != "" {
				return c, nested, true, reject(ruleDenied, c.text(), name+" is not allowed: "+w.refuse, "run the command directly")
			}
			pa := parseArgs(rest, w.spec, true)
			if err := unknownOpt(pa); err != nil {
				return c, nested, true, err
			}
			if pa.has(w.done...) {
				return c, nested, true, nil
			}
			if len(w.strings) > 0 && pa.has(w.strings...) {
				nested = append(nested, pa.values(w.strings...)...)
				return c, nested, true, nil
			}
			ops := pa.operands
			if len(ops) < w.skip {
				return c, nested, true, nil
			}
			ops = ops[w.skip:]
			switch {
			case name == "su" || name == "runuser":
				// Without -c, su and runuser start a login shell that reads standard input.
				if len(ops) > 0 && name == "runuser" && pa.has("-u", "--user") {
					next(ops)
					continue
				}
				in, err := stdinScript(c)
				if err != nil {
					return c, nested, true, err
				}
				return c, append(nested, in), true, nil
			case name == "script":
				return c, nested, true, reject(ruleDenied, c.text(), "script without -c runs a shell that reads standard input", "run the command directly")
			case w.joined != "" && !pa.has("x", "--exec"):
				if len(ops) == 0 {
					return c, nested, true, nil
				}
				return c, append(nested, joinArgs(ops)), true, nil
			case name == "xargs":
				if len(ops) == 0 {
					ops = []arg{{alts: []string{"echo"}}}
				}
				ops = append(append([]arg(nil), ops...), arg{alts: []string{dyn}, dynamic: true})
			}
			next(ops)
			continue
		}
		switch {
		case name == "env":
			pa := parseArgs(rest, optSpec{short: "uCS", shortFlags: "i0v", closed: true,
				long:  []string{"--unset", "--chdir", "--split-string", "--default-signal", "--ignore-signal", "--block-signal"},
				flags: []string{"--ignore-environment", "--null", "--debug", "--list-signal-handling", "--help", "--version"}}, true)
			if err := unknownOpt(pa); err != nil {
				return c, nested, true, err
			}
			for _, d := range pa.values("-C", "--chdir") {
				if _, err := chdirTo(c, repoDir, d); err != nil {
					return c, nested, true, err
				}
			}
			nested = append(nested, pa.values("-S", "--split-string")...)
			ops := pa.operands
			assigns := map[string]arg{}
			for len(ops) > 0 && shellwords.IsAssignment(ops[0].val()) {
				k, v, _ := strings.Cut(ops[0].val(), "=")
				assigns[k] = arg{alts: []string{v}, dynamic: ops[0].dynamic}
				ops = ops[1:]
			}
			next(ops)
			if len(assigns) > 0 {
				for k, v := range c.assigns {
					assigns[k] = v
				}
				c.assigns = assigns
			}
		case name == "eval":
			if len(rest) == 0 {
				return c, nested, true, nil
			}
			return c, append(nested, joinArgs(rest)), true, nil
		case isLoader(name):
			pa := parseArgs(rest, ldsoSpec, true)
			if err := unknownOpt(pa); err != nil {
				return c, nested, true, err
			}
			if pa.has("--preload", "--audit") {
				return c, nested, true, reject(ruleShellSyntax, c.text(), "the loader's --preload and --audit inject code into the program, like LD_PRELOAD", "run the program directly")
			}
			if pa.has("--list", "--verify", "--help", "--version", "--list-tunables", "--list-diagnostics") {
				return c, nested, true, nil
			}
			next(pa.operands)
		case strings.HasPrefix(name, "qemu-") && !strings.HasPrefix(name, "qemu-system") && !strings.HasPrefix(name, "qemu-img"):
			i := 0
			for ; i < len(rest); i++ {
				v := rest[i].val()
				if !strings.HasPrefix(v, "-") {
					break
				}
				n := "-" + strings.TrimLeft(v, "-")
				switch {
				case qemuRefused[n]:
					return c, nested, true, reject(ruleDenied, c.text(), "qemu "+n+" loads code, writes logs or changes the environment of the program", "run the program directly; the sandbox is riscv64")
				case qemuValue[n]:
					i++
				case qemuFlag[n]:
				default:
					return c, nested, true, reject(ruleDenied, c.text(), "qemu "+v+" is an option the rules do not know, so they cannot tell which program it runs", "run the program directly; the sandbox is riscv64")
				}
			}
			if i >= len(rest) {
				return c, nested, true, nil
			}
			next(rest[i:])
		case strings.HasPrefix(name, "qemu-system"):
			return c, nested, true, reject(ruleDenied, c.text(), "a system emulator runs another machine", "build and run inside the sandbox")
		default:
			if shells[name] {
				pa := parseArgs(rest, shellSpec, true)
				if pa.flags["c"] {
					if len(pa.operands) == 0 {
						return c, nested, true, nil
					}
					nested = append(nested, pa.operands[0])
					return c, nested, true, nil
				}
				if pa.has("--rcfile", "--init-file") {
					if err := denyFlowExec(c, pa.values("--rcfile", "--init-file")); err != nil {
						return c, nested, true, err
					}
				}
				if len(pa.operands) == 0 || pa.flags["s"] || pa.flags["i"] {
					in, err := stdinScript(c)
					if err != nil {
						return c, nested, true, err
					}
					nested = append(nested, in)
					return c, nested, true, nil
				}
				if err := scriptOperand(c, pa.operands[0]); err != nil {
					return c, nested, true, err
				}
				return c, nested, true, nil
			}
			if name == "source" || name == "." {
				if len(rest) > 0 {
					if err := scriptOperand(c, rest[0]); err != nil {
						return c, nested, true, err
					}
				}
				return c, nested, true, nil
			}
			return c, nested, false, nil
		}
	}
	return c, nested, false, reject(ruleSingle, c.text(), "too many wrapper programs", "run the program directly")
}

// shellSpec is the option table of sh and bash as far as the rules need it.
var shellSpec = optSpec{short: "oO", long: []string{"--rcfile", "--init-file"}}
