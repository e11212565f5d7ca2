package validate

import (
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/eclipse-atesor/atesor-go/internal/shellwords"
)

// This file holds the rules against toolchain hooks: options and variables with which a
// compiler, linker, build tool or package manager runs another program, loads code, or
// writes its output outside the repository; code fetched from outside the distro archive
// (go run/install of remote modules, cargo install, pip, npm, gem, ...); and the
// effects (files written or downloaded, links, clones) that the flow rules follow.

// versioned matches names such as gcc-13, clang-16 and riscv64-linux-gnu-gcc-14.
var versioned = regexp.MustCompile(`-[0-9]+(\.[0-9]+)*$`)

// toolName strips a target triplet and a version from a tool name:
// riscv64-linux-gnu-gcc-14 is gcc.
func toolName(name string) string {
	n := versioned.ReplaceAllString(name, "")
	if i := strings.LastIndexByte(n, '-'); i >= 0 && strings.Count(n, "-") >= 2 {
		n = n[i+1:]
	}
	return n
}

var (
	compilerDrivers = map[string]bool{"gcc": true, "g++": true, "cc": true, "c++": true, "clang": true, "clang++": true, "cpp": true, "gfortran": true, "gccgo": true}
	linkers         = map[string]bool{"ld": true, "ld.bfd": true, "ld.gold": true, "ld.lld": true, "lld": true, "mold": true, "gold": true}
	binutils        = map[string]bool{"ar": true, "ranlib": true, "nm": true, "objdump": true, "objcopy": true, "strip": true, "readelf": true, "size": true, "strings": true, "addr2line": true, "c++filt": true, "elfedit": true, "as": true, "gcc-ar": true, "gcc-nm": true, "gcc-ranlib": true}
)

// gccLong is the table of the gcc and clang drivers' long options (they accept
// unambiguous abbreviations of them).
var gccLong = optSpec{
	long: []string{"--output", "--specs", "--prefix", "--for-linker", "--for-assembler", "--sysroot", "--param", "--language",
		"--include-directory", "--library-directory", "--dumpdir", "--dumpbase", "--config", "--ld-path", "--target",
		"--rtlib", "--driver-mode", "--include", "--define-macro", "--undefine-macro", "--std", "--debug", "--optimize"},
	flags: []string{"--verbose", "--version", "--help", "--save-temps", "--pass-exit-codes", "--print-search-dirs",
		"--print-libgcc-file-name", "--print-multiarch", "--print-sysroot", "--no-warnings", "--pedantic", "--shared", "--static", "--pie", "--no-canonical-prefixes"},
}

// ldLong are the linker's options that load code or write files. ld accepts them with one
// or two dashes and abbreviated.
var ldLong = []string{"plugin", "plugin-opt", "output", "Map", "dependency-file", "out-implib"}

// hookProblem says why a compiler or linker argument list runs or loads another program,
// or "" when it does not. outs receives the files the arguments write.
func hookProblem(name string, args []string) (problem string, outs []string) {
	tool := toolName(name)
	driver := compilerDrivers[tool] || compilerDrivers[name]
	linker := linkers[tool] || linkers[name]
	var linkArgs []string
	for i := 0; i < len(args); i++ {
		v := args[i]
		nextVal := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		if strings.HasPrefix(v, "@") && len(v) > 1 {
			return "the response file " + v + " holds options the rules cannot read", nil
		}
		if binutils[tool] || binutils[name] {
			if strings.HasPrefix(v, "--pl") || v == "-plugin" {
				return v + " loads a plugin into " + name, nil
			}
			continue
		}
		if linker {
			if p, o := ldArg(v, nextVal); p != "" || o != "" {
				if p != "" {
					return p, nil
				}
				outs = append(outs, o)
			}
			continue
		}
		if !driver {
			continue
		}
		if strings.HasPrefix(v, "--") && len(v) > 2 {
			n, val, hasVal := strings.Cut(v, "=")
			names := gccLong.resolveLong(n)
			for _, canon := range names {
				if !hasVal && slices.Contains(gccLong.long, canon) {
					val = nextVal()
					hasVal = true
				}
				switch canon {
				case "--specs", "--prefix", "--config", "--ld-path":
					return v + " makes the compiler run or read other programs and settings", nil
				case "--output", "--dumpdir":
					outs = append(outs, val)
				case "--for-linker":
					linkArgs = append(linkArgs, val)
				}
			}
			continue
		}
		switch {
		case v == "-wrapper", strings.HasPrefix(v, "-specs"), strings.HasPrefix(v, "-fplugin"), strings.HasPrefix(v, "-iplugindir"),
			strings.HasPrefix(v, "-fpass-plugin"), strings.HasPrefix(v, "-fload-pass-plugin"), strings.HasPrefix(v, "-ccc-"):
			return v + " makes the compiler run or load another program", nil
		case v == "-B" || strings.HasPrefix(v, "-B") && (strings.ContainsAny(v, "/.") || len(v) == 2):
			return v + " makes the compiler run programs from another directory", nil
		case strings.HasPrefix(v, "-fuse-ld=") && strings.Contains(v, "/"), strings.HasPrefix(v, "-fuse-ld=") && !knownLinker(strings.TrimPrefix(v, "-fuse-ld=")):
			return v + " runs a linker that is not a distro linker", nil
		case v == "-Xclang":
			if n := nextVal(); n == "-load" || n == "-plugin" || n == "-add-plugin" || strings.HasPrefix(n, "-load") || strings.HasPrefix(n, "-fplugin") {
				return "-Xclang " + n + " loads a plugin into the compiler", nil
			}
		case v == "-o":
			outs = append(outs, nextVal())
		case strings.HasPrefix(v, "-o"):
			outs = append(outs, v[2:])
		case v == "-MF" || v == "-aux-info" || v == "-dumpdir":
			outs = append(outs, nextVal())
		case strings.HasPrefix(v, "-MF"):
			outs = append(outs, v[3:])
		case strings.HasPrefix(v, "-Wl,"):
			linkArgs = append(linkArgs, strings.Split(v[4:], ",")...)
		case v == "-Xlinker":
			linkArgs = append(linkArgs, nextVal())
		case strings.HasPrefix(v, "-Wa,"):
			for _, w := range strings.Split(v[4:], ",") {
				if strings.HasPrefix(w, "@") {
					return "the assembler response file " + w + " holds options the rules cannot read", nil
				}
			}
		}
	}
	for j := 0; j < len(linkArgs); j++ {
		la := linkArgs
		k := j
		if p, o := ldArg(la[k], func() string {
			if j+1 < len(la) {
				j++
				return la[j]
			}
			return ""
		}); p != "" || o != "" {
			if p != "" {
				return "the linker option " + p, nil
			}
			outs = append(outs, o)
		}
		if strings.HasPrefix(la[k], "@") {
			return "the linker response file " + la[k] + " holds options the rules cannot read", nil
		}
	}
	return "", outs
}

// ldArg checks one linker argument: a plugin is a problem; an output option returns the
// file it writes.
func ldArg(v string, next func() string) (problem, out string) {
	switch {
	case v == "-o":
		return "", next()
	case strings.HasPrefix(v, "-o") && !strings.HasPrefix(v, "--"):
		// -ofile (ld's -o with an attached value); -output is the long option.
		if !strings.HasPrefix("-output", strings.SplitN(v, "=", 2)[0]) {
			return "", v[2:]
		}
	case !strings.HasPrefix(v, "-") || len(strings.TrimLeft(v, "-")) < 2:
		return "", ""
	}
	n, val, hasVal := strings.Cut(strings.TrimLeft(v, "-"), "=")
	for _, l := range ldLong {
		if !strings.HasPrefix(l, n) {
			continue
		}
		if l == "plugin" || l == "plugin-opt" {
			return v + " loads a linker plugin", ""
		}
		if !hasVal {
			val = next()
		}
		return "", val
	}
	return "", ""
}

func knownLinker(s string) bool {
	switch s {
	case "bfd", "gold", "lld", "mold", "ld":
		return true
	}
	return false
}

// outsideRepo reports whether an output path leaves the repository (and /tmp).
func outsideRepo(v string) bool {
	if v == "" || v == "-" || v == "/dev/null" {
		return false
	}
	return escapesRepo(v)
}

// denyHooks applies the toolchain hook rules to a command (after wrappers).
func denyHooks(c call, strict bool) error {
	if len(c.args) == 0 {
		return nil
	}
	name := base(c.prog())
	args := c.args[1:]
	vals := make([]string, len(args))
	for i, a := range args {
		vals[i] = a.val()
	}
	tool := toolName(name)
	if compilerDrivers[tool] || linkers[tool] || binutils[tool] || compilerDrivers[name] || linkers[name] || binutils[name] {
		for _, a := range args {
			if strings.HasPrefix(a.val(), "@") && !a.static() {
				return reject(ruleHook, c.text(), "a response file only known at run time holds options the rules cannot read", "pass the options on the command line")
			}
		}
		problem, outs := hookProblem(name, vals)
		if problem != "" {
			return reject(ruleHook, c.text(), problem, "compile and link with plain flags and the distro toolchain")
		}
		for _, o := range outs {
			if outsideRepo(o) {
				return reject(rulePath, c.text(), name+" writes "+shown(o)+", outside the repository", "write build outputs inside the repository or /tmp")
			}
			if err := denyWriteThrough(c, o); err != nil {
				return err
			}
		}
		return nil
	}
	switch name {
	case "go":
		return denyGoHooks(c, args)
	case "cargo":
		return denyCargo(c, args)
	case "rustc":
		return denyRustc(c, args)
	case "make", "gmake":
		return denyMakeHooks(c, args)
	}
	if why, ok := foreignPackageManager(name, args); ok {
		return reject(ruleRemoteCode, c.text(), why, "install what the build needs from the distro archive with apt-get install -y <package>")
	}
	return nil
}

// denyMakeHooks refuses make code given on the command line (--eval in any spelling,
// -E) and makefiles outside the repository.
func denyMakeHooks(c call, args []arg) error {
	pa := parseArgs(args, makeSpec, false)
	if pa.has("-E", "--eval") {
		return reject(ruleHook, c.text(), "make --eval runs make code the rules cannot read", "pass variables as make VAR=value")
	}
	for _, o := range pa.operands {
		if shellwords.IsAssignment(o.val()) {
			k, v, _ := strings.Cut(o.val(), "=")
			if err := denyToolEnv(c, k, arg{alts: []string{v}, dynamic: o.dynamic}); err != nil {
				return err
			}
		}
	}
	return nil
}

// makeSpec is GNU make's option table.
var makeSpec = optSpec{
	short: "CfIjlWoE",
	long: []string{"--directory", "--file", "--makefile", "--include-dir", "--jobs", "--load-average", "--max-load",
		"--what-if", "--new-file", "--assume-new", "--old-file", "--assume-old", "--eval", "--output-sync", "--debug", "--jobserver-style", "--jobserver-auth", "--shuffle"},
	flags: []string{"--always-make", "--environment-overrides", "--ignore-errors", "--keep-going", "--just-print", "--dry-run",
		"--recon", "--print-data-base", "--question", "--no-builtin-rules", "--no-builtin-variables", "--silent", "--quiet",
		"--no-silent", "--stop", "--no-keep-going", "--touch", "--trace", "--version", "--print-directory", "--no-print-directory",
		"--warn-undefined-variables", "--check-symlink-times", "--help"},
}

// goSafeEnvKeys are the go env -w settings that select no program and no code.
var goSafeEnvKeys = map[string]bool{
	"GOPROXY": true, "GONOPROXY": true, "GONOSUMDB": true, "GONOSUMCHECK": true, "GOPRIVATE": true, "GOSUMDB": true,
	"GO111MODULE": true, "CGO_ENABLED": true, "GOARCH": true, "GOOS": true, "GORISCV64": true, "GOMODCACHE": true,
	"GOCACHE": true, "GOTELEMETRY": true, "GOTOOLCHAIN": true, "GOFLAGS": true, "GODEBUG": true, "GOEXPERIMENT": true,
	"GOINSECURE": false, "GOVCS": false,
}

func denyGoHooks(c call, args []arg) error {
	for _, a := range args {
		v := a.val()
		n := strings.TrimLeft(v, "-")
		n, val, _ := strings.Cut(n, "=")
		if strings.HasPrefix(v, "-") && (n == "toolexec" || n == "exec" || n == "overlay" || n == "modfile" && strings.Contains(val, "/")) {
			return reject(ruleHook, c.text(), "go "+v+" runs another program or replaces the package's files", "run go build, go test or go install without it")
		}
		if strings.HasPrefix(v, "-") && n == "ldflags" || strings.Contains(v, "-extld") {
			if strings.Contains(v, "-extld") || strings.Contains(val, "extld") {
				return reject(ruleHook, c.text(), "-extld selects the external linker program", "let go use the distro C toolchain")
			}
		}
	}
	pa := parseArgs(args, optSpec{short: "C", exact: true}, true)
	if len(pa.operands) == 0 {
		return nil
	}
	sub := pa.operands[0].val()
	rest := pa.operands[1:]
	switch sub {
	case "env":
		wpa := parseArgs(rest, optSpec{exact: true}, false)
		if !wpa.has("w", "-w", "--w") {
			return nil
		}
		for _, kv := range wpa.operands {
			k, v, _ := strings.Cut(kv.val(), "=")
			if !kv.static() || !goSafeEnvKeys[k] {
				return reject(ruleHook, c.text(), "go env -w "+shown(k)+" changes the go configuration of every later command (it can name programs the go tool runs)", "set the variable for one command (VAR=value go build) instead")
			}
			if err := denyToolEnv(c, k, arg{alts: []string{v}}); err != nil {
				return err
			}
		}
	case "run", "install", "get", "tool":
		for _, a := range rest {
			v := a.val()
			if strings.HasPrefix(v, "-") {
				continue
			}
			if remoteGoPackage(v) {
				return reject(ruleRemoteCode, c.text(), "go "+sub+" "+shown(v)+" fetches and builds code that is not the package's", "build the package's own code (go build ./...); install tools from the distro archive")
			}
		}
	}
	return nil
}

// remoteGoPackage reports whether a go package argument names code outside the module:
// a version query (pkg@v) or an import path whose first element has a dot.
func remoteGoPackage(v string) bool {
	if strings.Contains(v, "@") {
		return true
	}
	if strings.HasPrefix(v, ".") || strings.HasPrefix(v, "/") || strings.HasSuffix(v, ".go") {
		return false
	}
	first, _, _ := strings.Cut(v, "/")
	return strings.Contains(first, ".")
}

// cargoSpec is cargo's option table as far as the rules need it.
var cargoSpec = optSpec{
	short: "pjZCF",
	long: []string{"--config", "--target", "--target-dir", "--manifest-path", "--package", "--jobs", "--features", "--profile",
		"--bin", "--example", "--test", "--bench", "--out-dir", "--artifact-dir", "--git", "--branch", "--tag", "--rev",
		"--path", "--root", "--index", "--registry", "--color", "--message-format", "--lockfile-path", "--exclude", "--timings"},
	flags: []string{"--release", "--all-features", "--no-default-features", "--workspace", "--all", "--lib", "--bins",
		"--examples", "--tests", "--benches", "--all-targets", "--locked", "--frozen", "--offline", "--verbose", "--quiet",
		"--keep-going", "--force", "--list", "--version", "--help", "--no-track", "--debug"},
}

func denyCargo(c call, args []arg) error {
	pa := parseArgs(args, cargoSpec, false)
	for _, cfg := range pa.values("--config") {
		v := strings.ToLower(cfg.val())
		if !cfg.static() || !strings.Contains(v, "=") || strings.ContainsAny(v, "[") ||
			strings.Contains(v, "linker") || strings.Contains(v, "runner") || strings.Contains(v, "rustc") ||
			strings.Contains(v, "wrapper") || strings.Contains(v, "credential") || strings.Contains(v, "rustdoc") ||
			strings.Contains(v, "registr") || strings.Contains(v, "source") || strings.Contains(v, "env.") || strings.Contains(v, "alias") {
			return reject(ruleHook, c.text(), "cargo --config "+shown(cfg.val())+" can name programs cargo runs or change where code comes from", "pass plain cargo options (--release, --features)")
		}
	}
	for _, o := range pa.values("--target-dir", "--out-dir", "--artifact-dir", "--root") {
		if outsideRepo(o.val()) {
			return reject(rulePath, c.text(), "cargo writes to "+shown(o.val())+", outside the repository", "keep cargo's outputs in the repository (target/)")
		}
	}
	if len(pa.operands) > 0 && pa.operands[0].val() == "install" {
		for _, p := range pa.values("--path") {
			if outsideRepo(p.val()) {
				return reject(ruleRemoteCode, c.text(), "cargo install --path "+shown(p.val())+" builds code outside the repository", "build the package itself with cargo build --release")
			}
		}
		if !pa.has("--path") || pa.has("--git", "--index", "--registry") || len(pa.operands) > 1 {
			return reject(ruleRemoteCode, c.text(), "cargo install fetches and builds code that is not the package's (a crate, --git or --registry)", "build the package itself with cargo build --release; install tools from the distro archive")
		}
	}
	return nil
}

func denyRustc(c call, args []arg) error {
	var cg []string
	for i := 0; i < len(args); i++ {
		v := args[i].val()
		switch {
		case v == "-C" || v == "--codegen":
			if i+1 < len(args) {
				i++
				cg = append(cg, args[i].val())
			}
		case strings.HasPrefix(v, "-C"):
			cg = append(cg, v[2:])
		case strings.HasPrefix(v, "--codegen="):
			cg = append(cg, strings.TrimPrefix(v, "--codegen="))
		case v == "-o" || v == "--out-dir":
			if i+1 < len(args) && outsideRepo(args[i+1].val()) {
				return reject(rulePath, c.text(), "rustc writes outside the repository", "write build outputs inside the repository")
			}
		case strings.HasPrefix(v, "@"):
			return reject(ruleHook, c.text(), "the response file "+v+" holds options the rules cannot read", "pass the options on the command line")
		}
	}
	for _, o := range cg {
		if why := rustCodegenHook(o); why != "" {
			return reject(ruleHook, c.text(), why, "let rustc use the distro linker")
		}
	}
	return nil
}

// rustCodegenHook says why a -C option runs another program.
func rustCodegenHook(o string) string {
	k, v, _ := strings.Cut(o, "=")
	switch k {
	case "linker", "linker-flavor":
		return "-C " + o + " selects the linker program"
	case "link-arg", "link-args", "pre-link-arg", "pre-link-args":
		if p, _ := hookProblem("cc", strings.Fields(v)); p != "" {
			return "-C " + o + ": " + p
		}
	case "llvm-args", "passes":
		if strings.Contains(v, "load") || strings.Contains(v, "plugin") {
			return "-C " + o + " loads code into the compiler"
		}
	}
	return ""
}

// foreignPackageManager says why a command installs or runs packages from outside the
// distro archive.
func foreignPackageManager(name string, args []arg) (string, bool) {
	pa := parseArgs(args, optSpec{exact: true}, true)
	sub := ""
	if len(pa.operands) > 0 {
		sub = pa.operands[0].val()
	}
	switch {
	case name == "pip" || name == "pip3" || strings.HasPrefix(name, "pip3."):
		switch sub {
		case "install", "download", "wheel":
			return name + " " + sub + " fetches packages from outside the distro archive and runs their build code", true
		}
	case name == "npx" || name == "uvx" || name == "pipx" || name == "bunx" || name == "cpanm" || name == "cpan" || name == "composer" || name == "conda" || name == "mamba" || name == "nix-shell" || name == "brew" || name == "opam" || name == "luarocks" || name == "nimble" || name == "stack" || name == "cabal" && (sub == "install" || sub == "run"):
		return name + " fetches and runs packages from outside the distro archive", true
	case name == "npm" || name == "pnpm" || name == "yarn" || name == "bun":
		switch sub {
		case "install", "i", "ci", "add", "exec", "x", "dlx", "create", "init", "update", "up", "upgrade", "rebuild", "run-script":
			return name + " " + sub + " fetches packages from outside the distro archive and runs their scripts", true
		}
	case name == "gem" || name == "bundle" || name == "bundler":
		switch sub {
		case "install", "update", "exec":
			return name + " " + sub + " fetches gems from outside the distro archive", true
		}
	case name == "uv":
		switch sub {
		case "pip", "tool", "run", "add", "sync":
			return "uv " + sub + " fetches packages from outside the distro archive", true
		}
	case name == "rustup" || name == "sdkman" || name == "nvm" || name == "pyenv" || name == "asdf":
		return name + " installs toolchains from outside the distro archive", true
	case strings.HasPrefix(name, "python") && sub == "-m":
		// python -m pip install
		if len(pa.operands) > 0 {
			break
		}
	}
	if strings.HasPrefix(name, "python") {
		for i, a := range args {
			if a.val() == "-m" && i+1 < len(args) {
				mod := args[i+1].val()
				if mod == "pip" || mod == "ensurepip" || mod == "pipx" {
					return name + " -m " + mod + " fetches packages from outside the distro archive", true
				}
				if mod == "venv" || mod == "virtualenv" {
					return "", false
				}
			}
		}
	}
	return "", false
}

// execScripts returns the files a command runs as code besides its program: the script
// of an interpreter, make -f, cmake -P/-C, awk -f, sed -f.
func execScripts(c call) []arg {
	if len(c.args) == 0 {
		return nil
	}
	name := base(c.prog())
	args := c.args[1:]
	if name == "make" || name == "gmake" {
		if files := parseArgs(args, makeSpec, false).values("-f", "--file", "--makefile"); len(files) > 0 {
			return files
		}
		// Without -f, make runs the recipes of the makefile it finds by name.
		return []arg{{alts: []string{"GNUmakefile", "makefile", "Makefile"}}}
	}
	if len(args) == 0 {
		return nil
	}
	switch {
	case name == "cmake":
		var out []arg
		for i, a := range args {
			v := a.val()
			if (v == "-P" || v == "-C") && i+1 < len(args) {
				out = append(out, args[i+1])
			} else if (strings.HasPrefix(v, "-P") || strings.HasPrefix(v, "-C")) && len(v) > 2 {
				out = append(out, arg{alts: []string{v[2:]}})
			}
		}
		return out
	case name == "awk" || name == "gawk" || name == "mawk" || name == "nawk":
		return parseArgs(args, optSpec{short: "fvF", long: []string{"--file"}}, false).values("-f", "--file")
	case name == "sed":
		return parseArgs(args, sedSpec, false).values("-f", "--file")
	}
	if _, ok := interpreters[name]; ok || strings.HasPrefix(name, "python") {
		for _, a := range args {
			if !strings.HasPrefix(a.val(), "-") {
				return []arg{a}
			}
		}
	}
	return nil
}

// downloaders name the programs that fetch files, and their output options.
var (
	curlOut = optSpec{short: "oDcKTuXHdAeEFxwbCrYyzm", long: []string{"--output", "--output-dir", "--dump-header", "--cookie-jar", "--config",
		"--trace", "--trace-ascii", "--stderr", "--data", "--header", "--user", "--request", "--url", "--write-out", "--cookie", "--range", "--max-time"},
		flags: []string{"--remote-name", "--remote-name-all", "--remote-header-name", "--location", "--silent", "--show-error", "--fail", "--insecure", "--compressed", "--create-dirs"}}
	wgetOut = optSpec{short: "OPoaeUtTwQ", long: []string{"--output-document", "--directory-prefix", "--output-file", "--append-output", "--execute",
		"--user-agent", "--tries", "--timeout", "--wait", "--quota", "--header", "--input-file"},
		flags: []string{"--quiet", "--no-verbose", "--continue", "--no-check-certificate", "--recursive", "--mirror", "--timestamping", "--no-clobber", "--show-progress"}}
)

// recordEffects notes what a command wrote, downloaded, linked or cloned, for the flow
// rules of later commands.
func recordEffects(c call) {
	fx := c.fx
	if fx == nil || len(c.args) == 0 {
		return
	}
	name := base(c.prog())
	args := c.args[1:]
	urlBase := func(u string) string {
		if i := strings.IndexAny(u, "?#"); i >= 0 {
			u = u[:i]
		}
		return path.Base(u)
	}
	switch name {
	case "tee":
		for _, o := range parseArgs(args, optSpec{}, false).operands {
			fx.record(o.val(), "written by tee")
		}
	case "curl":
		pa := parseArgs(args, curlOut, false)
		for _, o := range pa.values("-o", "--output") {
			fx.record(o.val(), "downloaded by curl")
		}
		if pa.has("O", "--remote-name", "--remote-name-all", "J", "--remote-header-name") {
			for _, u := range append(pa.operands, pa.values("--url")...) {
				fx.record(urlBase(u.val()), "downloaded by curl")
			}
			if pa.has("J", "--remote-header-name") {
				// The server chooses the name: anything run later may be it.
				fx.recordClone("", dyn)
			}
		}
	case "wget", "aria2c", "axel":
		pa := parseArgs(args, wgetOut, false)
		if outs := pa.values("-O", "--output-document", "-o"); len(outs) > 0 && name != "wget" || len(pa.values("-O", "--output-document")) > 0 {
			for _, o := range append(pa.values("-O", "--output-document"), outs...) {
				fx.record(o.val(), "downloaded by "+name)
			}
		} else {
			for _, u := range pa.operands {
				fx.record(urlBase(u.val()), "downloaded by "+name)
			}
		}
	case "cp", "mv", "install", "ln", "rsync":
		pa := parseArgs(args, installSpec, false)
		ops := pa.operands
		if name == "ln" && (pa.has("s", "--symbolic")) {
			switch {
			case pa.has("-t", "--target-directory"):
				for _, t := range ops {
					fx.recordLink(t.val(), path.Join(pa.values("-t", "--target-directory")[0].val(), path.Base(t.val())))
				}
			case len(ops) == 1:
				fx.recordLink(ops[0].val(), path.Base(ops[0].val()))
			case len(ops) >= 2:
				fx.recordLink(ops[0].val(), ops[len(ops)-1].val())
			}
		}
		if len(ops) < 2 && !pa.has("-t", "--target-directory") {
			return
		}
		dests := pa.values("-t", "--target-directory")
		srcs := ops
		if len(dests) == 0 {
			dests, srcs = ops[len(ops)-1:], ops[:len(ops)-1]
		}
		for _, s := range srcs {
			if v := s.val(); (strings.HasPrefix(v, "/dev/") || strings.HasPrefix(v, "/proc/")) && v != "/dev/null" {
				// cp /dev/stdin x.sh <<< '...': the content is the command's own input.
				for _, d := range dests {
					fx.record(d.val(), "written from "+v+" by "+name)
				}
				continue
			}
			if how, ok := fx.wrote(s.val()); ok {
				for _, d := range dests {
					fx.record(d.val(), how)
					fx.record(path.Join(d.val(), path.Base(s.val())), how)
				}
			}
		}
	case "dd":
		for _, a := range args {
			if strings.HasPrefix(a.val(), "of=") {
				fx.record(strings.TrimPrefix(a.val(), "of="), "written by dd")
			}
		}
	case "base64", "xxd", "uudecode", "openssl", "gpg", "unxz", "gunzip", "zcat", "bunzip2":
		pa := parseArgs(args, optSpec{short: "o", long: []string{"--output", "-out"}}, false)
		for _, o := range pa.values("-o", "--output", "-out") {
			fx.record(o.val(), "decoded by "+name)
		}
		if name == "xxd" && len(pa.operands) >= 2 {
			fx.record(pa.operands[1].val(), "decoded by xxd")
		}
	case "tar", "unzip", "bsdtar", "7z", "cpio":
		for _, a := range args {
			if _, ok := fx.wrote(a.val()); ok && strings.Contains(fx.written[path.Base(a.val())], "download") {
				fx.recordClone(a.val(), dyn)
			}
		}
	case "git":
		l := parseGit(args)
		if !l.hasSub {
			return
		}
		sub := l.sub.val()
		rest := l.args
		switch sub {
		case "clone":
			ops := rest.operands
			if len(ops) == 1 {
				fx.recordClone(ops[0].val(), "")
			} else if len(ops) >= 2 {
				fx.recordClone(ops[0].val(), ops[1].val())
			}
		case "fetch", "pull":
			for _, o := range rest.operands {
				if v := o.val(); strings.Contains(v, "://") || strings.Contains(v, "@") && strings.Contains(v, ":") || strings.HasSuffix(v, ".git") || strings.HasPrefix(v, "/") {
					fx.fetched = "git " + sub + " " + v
				}
			}
		case "submodule", "subtree":
			for _, o := range rest.operands {
				if strings.Contains(o.val(), "://") {
					fx.fetched = "git " + sub + " " + o.val()
				}
			}
		}
	}
}
