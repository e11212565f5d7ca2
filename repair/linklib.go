package repair

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
)

// A repacked distribution source often has a bundled library stripped (cohomcalg
// 0.32+ds drops its polylib_mod): the headers now come from the distribution's
// development package, which a fix or the Build-Depends installed, but the Makefile
// still links the bundled objects, now none, and never names the shared library, as
// the distribution's packaging does (-lpolylib64). The link then stops at undefined
// references every one of which that installed library defines.

// undefinedRef is an undefined symbol as GNU ld ("undefined reference to
// `Matrix_Alloc'", C++ names demangled) and lld or mold ("error: undefined symbol:
// Matrix_Alloc") report it at link time; the dynamic loader's "symbol lookup error" is
// not a link line's.
var undefinedRef = re("undefined reference to [`'‘]([^`'’\\n]+)['’]|error: undefined symbol: ([^\\n]+)")

// Bounds: how many symbols and packages one search takes, and how long a symbol may be.
const (
	linkSymbolsMax  = 256
	linkPackagesMax = 64
	linkSymbolLen   = 1024
)

// dsoMissing is GNU ld naming the library itself: a symbol an input needs is in a
// shared library that is not on the link line, or that --as-needed dropped because the
// line names it before the input (libmpc's mpc2sv8: "-lm ../libmpcenc/libmpcenc.a",
// whose quant.o needs pow), found only through another library's DT_NEEDED:
// "undefined reference to symbol 'pow@@GLIBC_2.27'" and "/lib/riscv64-linux-gnu/libm.so:
// error adding symbols: DSO missing from command line". The library is the one named.
var dsoMissing = re(`(?:^|\s)(/\S*/lib[^/\s:]+\.so)(?:\.[0-9.]+)?: error adding symbols: DSO missing from command line`)

// dsoSymbol is the symbol of such a report, without its version.
var dsoSymbol = re("undefined reference to symbol [`'‘]([^`'’@\\n]+)")

func linkLibraryRule() Rule {
	return Rule{
		Name: "link-library",
		Doc: "undefined references at link time that one shared library of an installed package (a fix's or a Build-Depends) " +
			"defines every one of (cohomcalg's stripped polylib: libpolylib64-dev's -lpolylib64), or the library ld's \"DSO missing from " +
			"command line\" names (libmpc's libm): link it through the build system's own variables",
		Signatures: []*regexp.Regexp{undefinedRef, dsoMissing},
		Make:       makeLinkLibrary,
	}
}

// UndefinedSymbols returns the symbols a link's output reports undefined, first mention
// first, each once, without symbol versions (foo@GLIBC_2.27) and without the __atomic_*
// libcalls the libatomic rule answers.
func UndefinedSymbols(text string) []string {
	var out []string
	for _, m := range undefinedRef.FindAllStringSubmatch(text, -1) {
		s := strings.TrimSpace(m[1] + m[2])
		if at := strings.IndexByte(s, '@'); at > 0 {
			s = s[:at]
		}
		if s == "" || len(s) > linkSymbolLen || strings.HasPrefix(s, "__atomic_") || slices.Contains(out, s) {
			continue
		}
		out = append(out, s)
	}
	return out
}

// Library is a shared library an installed package ships as a lib*.so link, with the
// symbols asked about that its dynamic symbol table defines.
type Library struct {
	// Path is the link's absolute path in the sandbox; Package the package that ships it.
	Path, Package string
	// Defines are the asked symbols it defines (C++ names demangled, as ld reports them).
	Defines []string
}

// name is the library's name for -l: libpolylib64.so is polylib64.
func (l Library) name() string {
	return strings.TrimSuffix(strings.TrimPrefix(path.Base(l.Path), "lib"), ".so")
}

// LibraryFunc finds, among the lib*.so links of the installed packages (a package not
// installed is skipped), the libraries that define any of the symbols.
type LibraryFunc func(ctx context.Context, packages, symbols []string) ([]Library, error)

// SandboxLibraries is the [LibraryFunc] of a sandbox: dpkg's file lists of the packages
// and nm's defined dynamic symbols of their lib*.so links, matched against the symbols
// inside the sandbox (passed in the environment, never on the command line), without
// network, with env as the commands' environment.
func SandboxLibraries(sb atesor.Sandbox, env []string) LibraryFunc {
	return func(ctx context.Context, packages, symbols []string) ([]Library, error) {
		if len(packages) == 0 || len(symbols) == 0 {
			return nil, nil
		}
		for _, p := range packages {
			if !debianPackage.MatchString(p) {
				return nil, fmt.Errorf("%q is not a package name", p)
			}
		}
		for _, s := range symbols {
			if s == "" || strings.ContainsAny(s, "\n\x00") || len(s) > linkSymbolLen {
				return nil, fmt.Errorf("%q is not a symbol the search takes", s)
			}
		}
		cmdEnv := append(slices.Clone(env), "ATESOR_LINK_SYMBOLS="+strings.Join(symbols, "\n"))
		res, err := sb.Exec(ctx, atesor.Command{Line: librariesScript(packages), Dir: "/", Env: cmdEnv, Timeout: 10 * time.Minute})
		if err != nil {
			return nil, fmt.Errorf("searching the packages' libraries: %w", err)
		}
		if !res.OK() {
			return nil, fmt.Errorf("the library search exited %d: %s", res.ExitCode, strings.TrimSpace(excerpt.Tail(res.Stderr, 300)))
		}
		return parseLibraries(res.Stdout, packages, symbols), nil
	}
}

// librariesScript prints "path<TAB>package<TAB>symbol" for every asked symbol
// (ATESOR_LINK_SYMBOLS, one a line) that a lib*.so link of the packages defines. nm -D
// prints versioned names (Matrix_Alloc@@VERS) on newer binutils; the version is cut.
// Every defined dynamic symbol counts, functions and data alike (ncurses' LINES and
// stdscr are data). A lib*.so that is an ld script rather than an ELF file (Debian's
// libncurses.so is "INPUT(libncurses.so.6 -ltinfo)", libc.so a GROUP) defines what its
// members do: -lNAME and relative members are looked up next to it, at most 8 of them,
// one level deep; -lNAME links them all, so the script's path is the one printed.
// The packages must match debianPackage.
func librariesScript(packages []string) string {
	return `for p in ` + strings.Join(packages, " ") + `; do ` +
		`dpkg -L "$p" 2>/dev/null | grep -E '^/(usr/)?lib/(.*/)?lib[^/]*\.so$' | head -n 32 | while IFS= read -r f; do ` +
		`[ -e "$f" ] || continue; m="$f"; ` +
		`if ! nm -D "$f" >/dev/null 2>&1 && [ "$(wc -c < "$f")" -lt 4096 ]; then ` +
		`d=${f%/*}; m=; ` +
		`for w in $(sed -n 's/^[[:space:]]*\(INPUT\|GROUP\)[[:space:]]*(\(.*\))[[:space:]]*$/\2/p' "$f" | tr '()' '  ' | head -c 1024); do ` +
		`case "$w" in AS_NEEDED) continue ;; -l*) w="$d/lib${w#-l}.so" ;; /*) ;; *) w="$d/$w" ;; esac; ` +
		`[ -f "$w" ] && m="$m $w"; done; fi; ` +
		`for x in $(echo $m | tr ' ' '\n' | head -n 8); do nm -DC --defined-only "$x" 2>/dev/null; done | awk -v f="$f" -v p="$p" ` +
		`'BEGIN { n = split(ENVIRON["ATESOR_LINK_SYMBOLS"], a, "\n"); for (i = 1; i <= n; i++) want[a[i]] = 1 } ` +
		`{ s = $0; sub(/^[0-9a-fA-F]* *[A-Za-z] /, "", s); sub(/@.*$/, "", s); if (s in want && !(s in seen)) { seen[s] = 1; print f "\t" p "\t" s } }'; ` +
		`done; done`
}

// parseLibraries reads librariesScript's output: a library per path, in the order
// found, with only asked symbols of asked packages.
func parseLibraries(out string, packages, symbols []string) []Library {
	var libs []Library
	for _, line := range strings.Split(out, "\n") {
		parts := strings.SplitN(strings.TrimRight(line, "\r"), "\t", 3)
		if len(parts) != 3 || !strings.HasPrefix(parts[0], "/") || !slices.Contains(packages, parts[1]) || !slices.Contains(symbols, parts[2]) {
			continue
		}
		i := slices.IndexFunc(libs, func(l Library) bool { return l.Path == parts[0] })
		if i < 0 {
			libs = append(libs, Library{Path: parts[0], Package: parts[1]})
			i = len(libs) - 1
		}
		if !slices.Contains(libs[i].Defines, parts[2]) {
			libs[i].Defines = append(libs[i].Defines, parts[2])
		}
	}
	return libs
}

// linkCandidates are the packages whose libraries the rule searches, each once, the
// plan's own installs first: what the plan installs (a fix's packages among them),
// what the earlier fixes installed, and the distribution's Build-Depends, which it
// also returns alone.
func linkCandidates(ctx context.Context, env Env) (pkgs, buildDeps []string, note string) {
	all := installedPackages(env)
	if env.Distribution != nil {
		d, err := env.Distribution(ctx)
		switch {
		case err != nil:
			note = fmt.Sprintf("the distribution's Build-Depends are not known (%v)", err)
		case d != nil:
			buildDeps = d.installable()
			all = append(all, buildDeps...)
		}
	}
	for _, p := range all {
		if debianPackage.MatchString(p) && !slices.Contains(pkgs, p) && len(pkgs) < linkPackagesMax {
			pkgs = append(pkgs, p)
		}
	}
	return pkgs, buildDeps, note
}

// definingLibrary picks the one library that defines every symbol: libraries of one
// name (the same library reached through /lib and /usr/lib) count once, and of several
// the one a Build-Depends ships is the one the distribution's build links (pick says
// so). It says why when there is none, or several and nothing picks one.
func definingLibrary(libs []Library, symbols, buildDeps []string) (lib Library, pick, why string) {
	var all []Library
	best := Library{}
	for _, l := range libs {
		if len(l.Defines) > len(best.Defines) {
			best = l
		}
		if len(l.Defines) == len(symbols) && !slices.ContainsFunc(all, func(o Library) bool { return o.name() == l.name() }) {
			all = append(all, l)
		}
	}
	if len(all) > 1 {
		dist := slices.DeleteFunc(slices.Clone(all), func(l Library) bool { return !slices.Contains(buildDeps, l.Package) })
		if len(dist) == 1 {
			return dist[0], " (of the " + fmt.Sprint(len(all)) + " installed libraries that define them all, the one a Build-Depends ships)", ""
		}
	}
	switch {
	case len(all) == 1:
		return all[0], "", ""
	case len(all) > 1:
		var names []string
		for _, l := range all {
			names = append(names, l.Path+" ("+l.Package+")")
		}
		return Library{}, "", "several installed libraries define every undefined symbol and nothing picks one: " + strings.Join(names, ", ")
	case best.Path != "":
		return Library{}, "", fmt.Sprintf("no installed library defines every undefined symbol (%s of %s defines %d of %d)",
			best.Path, best.Package, len(best.Defines), len(symbols))
	}
	return Library{}, "", "no installed library defines any of the undefined symbols"
}

func makeLinkLibrary(ctx context.Context, f Failure, env Env) (*Fix, string) {
	if m := dsoMissing.FindStringSubmatch(f.text() + "\n" + f.Message); m != nil {
		return linkNamedLibrary(ctx, f, env, Library{Path: m[1]})
	}
	syms := UndefinedSymbols(f.text() + "\n" + f.Message)
	if len(syms) == 0 {
		return nil, "no undefined symbol but __atomic_* libcalls in the output"
	}
	if len(syms) > linkSymbolsMax {
		return nil, fmt.Sprintf("%d undefined symbols: more than one missing library", len(syms))
	}
	if env.Plan == nil {
		return nil, "no build plan to link a library through"
	}
	if env.Libraries == nil {
		return nil, "the sandbox's libraries cannot be searched"
	}
	pkgs, buildDeps, note := linkCandidates(ctx, env)
	if len(pkgs) == 0 {
		return nil, "no package installed by the plan, a fix or the Build-Depends to search"
	}
	libs, err := env.Libraries(ctx, pkgs, syms)
	if err != nil {
		return nil, fmt.Sprintf("searching the installed libraries: %v", err)
	}
	lib, pick, why := definingLibrary(libs, syms, buildDeps)
	if why != "" {
		if note != "" {
			why += "; " + note
		}
		return nil, why
	}
	plain, _ := linkFlags(lib.name())
	if planHas(*env.Plan, plain) {
		return nil, "the plan already links " + plain + " (" + strings.Join(syms, ", ") + " still undefined)"
	}
	plan, where, ok := withLinkLib(*env.Plan, f.Phase, linkContext(ctx, f, env), lib.name())
	if !ok {
		return nil, "no configure, cmake, meson, go or make command in the plan takes linker flags"
	}
	return &Fix{
		Analysis: "The link's undefined references (" + strings.Join(firstFew(syms), ", ") + ") are all defined by " + lib.Path +
			", which the installed package " + lib.Package + " ships" + pick + ", and the link line does not name it; the sources are not changed.",
		Strategy: "link lib" + lib.name() + " (" + plain + ") through " + where,
		Plan:     &plan,
	}, ""
}

// linkNamedLibrary links the library ld named as missing from the command line: after
// the objects and archives (LIBS at configure time, make's LDLIBS or LIBS), where
// --as-needed keeps it, or wrapped in --no-as-needed where only linker flags reach.
func linkNamedLibrary(ctx context.Context, f Failure, env Env, lib Library) (*Fix, string) {
	if env.Plan == nil {
		return nil, "no build plan to link a library through"
	}
	var syms []string
	for _, m := range dsoSymbol.FindAllStringSubmatch(f.text()+"\n"+f.Message, linkSymbolsMax) {
		if !slices.Contains(syms, m[1]) {
			syms = append(syms, m[1])
		}
	}
	plain, wrapped := linkFlags(lib.name())
	if planHas(*env.Plan, wrapped) || planHas(*env.Plan, "LIBS="+plain) {
		return nil, "the plan already links " + plain + " after the objects (" + lib.Path + " still missing from the command line)"
	}
	plan, where, ok := withLinkLib(*env.Plan, f.Phase, linkContext(ctx, f, env), lib.name())
	if !ok {
		return nil, "no configure, cmake, meson, go or make command in the plan takes linker flags"
	}
	return &Fix{
		Analysis: "ld found " + strings.Join(firstFew(syms), ", ") + " only in " + lib.Path + ", which the link line does not keep " +
			"(not named, or named before the input that needs it, which --as-needed drops): \"DSO missing from command line\". " +
			"The library is linked after the inputs; the sources are not changed.",
		Strategy: "link lib" + lib.name() + " (" + plain + ") through " + where,
		Plan:     &plan,
	}, ""
}
