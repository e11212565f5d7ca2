package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/gotool"
	"github.com/eclipse-atesor/atesor-go/internal/hostenv"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/memory"
	"github.com/eclipse-atesor/atesor-go/optimize"
	"github.com/eclipse-atesor/atesor-go/provider"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// report collects the findings of doctor and the commands that fix them, section by
// section: `atesor doctor` prints them, the MCP server's doctor tool returns them.
type report struct {
	sections []doctorSection
	problems int
	fixes    []string
}

// doctorSection is one part of doctor's findings (host tools, binfmt_misc, ...).
type doctorSection struct {
	Name     string
	Findings []doctorFinding
}

// doctorFinding is one line of doctor's findings; Level is ok, note or problem.
type doctorFinding struct {
	Level, Text string
}

// The levels of a finding.
const (
	levelOK      = "ok"
	levelNote    = "note"
	levelProblem = "problem"
)

func (r *report) section(name string) { r.sections = append(r.sections, doctorSection{Name: name}) }

func (r *report) add(level, format string, args ...any) {
	if len(r.sections) == 0 {
		r.section("")
	}
	s := &r.sections[len(r.sections)-1]
	s.Findings = append(s.Findings, doctorFinding{Level: level, Text: fmt.Sprintf(format, args...)})
}

func (r *report) ok(format string, args ...any)   { r.add(levelOK, format, args...) }
func (r *report) info(format string, args ...any) { r.add(levelNote, format, args...) }
func (r *report) problem(fix, format string, args ...any) {
	r.problems++
	r.add(levelProblem, format, args...)
	if fix != "" {
		r.fixes = append(r.fixes, fix)
	}
}

// print writes the findings as doctor's text.
func (r *report) print(w io.Writer) {
	label := map[string]string{levelOK: "ok      ", levelNote: "note    ", levelProblem: "PROBLEM "}
	for _, s := range r.sections {
		fmt.Fprintf(w, "\n%s\n", s.Name)
		for _, f := range s.Findings {
			fmt.Fprintf(w, "  %s %s\n", label[f.Level], f.Text)
		}
	}
}

// doctorHeader is doctor's first line: version, platform, state home and user.
func doctorHeader(a *app, p atesor.Platform) string {
	return fmt.Sprintf("atesor %s, platform %s (sandbox %s), state home %s, running as %s",
		versionString(), p.Name, p.SandboxKey(), stateHomeText(), map[bool]string{true: "root", false: "a normal user"}[a.root])
}

// doctorChecks runs every check of doctor for the platform; it changes nothing.
func doctorChecks(ctx context.Context, a *app, p atesor.Platform) *report {
	r := &report{}
	doctorConfig(r, a.dotenv)
	doctorHostTools(r, p)
	doctorBinfmt(r)
	doctorIsolation(r)
	doctorSandboxes(ctx, r)
	doctorToolchain(ctx, r, p)
	doctorPerformance(r)
	doctorProvider(ctx, r)
	return r
}

func runDoctor(ctx context.Context, a *app, args []string) int {
	fs := flagSet("doctor")
	platform := fs.String("platform", envOr("ATESOR_PLATFORM", "debian"), "platform whose prerequisites to check: alpine, debian or ubuntu")
	u := usage{synopsis: "atesor doctor [--platform PLATFORM]",
		description: "Check what a port needs: the host tools of the rootfs sandbox, qemu-riscv64 in\n" +
			"binfmt_misc, the cached sandboxes, and the model provider and whether its API key is\n" +
			"set (the key itself is never printed). Doctor changes nothing: it prints the exact\n" +
			"commands that fix what is missing (as root, atesor port installs the host tools\n" +
			"itself). Exit status 1 when a problem is found."}
	pos, code, done := parseOrExit(a, fs, u, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return usageError(a, "doctor", "unexpected argument %q", pos[0])
	}
	p, err := knowledge.Profile(*platform)
	if err != nil {
		return usageError(a, "doctor", "--platform: %v", err)
	}
	fmt.Fprintln(a.stdout, doctorHeader(a, p))
	r := doctorChecks(ctx, a, p)
	r.print(a.stdout)

	if len(r.fixes) > 0 {
		if a.root {
			fmt.Fprint(a.stdout, "\nTo fix, run:\n")
		} else {
			fmt.Fprint(a.stdout, "\nTo fix, run as root (for example with sudo):\n")
		}
		for _, f := range r.fixes {
			fmt.Fprintf(a.stdout, "  %s\n", f)
		}
	}
	if r.problems > 0 {
		fmt.Fprintf(a.stdout, "\n%d problem(s) found.\n", r.problems)
		return exitFailed
	}
	fmt.Fprint(a.stdout, "\nNo problems found.\n")
	return exitOK
}

// doctorConfig lists Atesor's settings and where each came from: the environment or
// the .env file that set it (keys are never printed), and what the working
// directory's .env was not allowed to set.
func doctorConfig(r *report, d *dotEnvReport) {
	r.section("Settings (the environment, then ~/.config/atesor-ai/.env, $ATESOR_HOME/.env, ./.env)")
	if d == nil {
		d = &dotEnvReport{Origins: map[string]string{}}
		for _, kv := range os.Environ() {
			if k, _, ok := strings.Cut(kv, "="); ok && dotEnvAllowed(k) {
				d.Origins[k] = originEnvironment
			}
		}
	}
	names := make([]string, 0, len(d.Origins))
	for k := range d.Origins {
		names = append(names, k)
	}
	slices.Sort(names)
	if len(names) == 0 {
		r.info("no setting is made: every default applies")
	}
	for _, k := range names {
		r.ok("%s=%s  (from %s)", k, settingValue(k, os.Getenv(k)), d.Origins[k])
	}
	if len(d.LocalIgnored) > 0 {
		r.info("not applied from %s: %s (%s)", d.LocalFile, strings.Join(d.LocalIgnored, ", "), d.LocalWhy)
	}
}

// settingValue is how doctor shows a setting: a secret only as set, a URL without its
// user information, anything else quoted when it needs to be.
func settingValue(name, v string) string {
	up := strings.ToUpper(name)
	for _, s := range []string{"KEY", "TOKEN", "SECRET", "PASSWORD"} {
		if strings.Contains(up, s) {
			if v == "" {
				return "(empty)"
			}
			return "(set, not shown)"
		}
	}
	if strings.Contains(v, "://") {
		v = provider.RedactURL(v)
	}
	if v == "" || strings.ContainsAny(v, " \t\n\"'") || !strconv.CanBackquote(v) {
		return strconv.Quote(v)
	}
	return v
}

func doctorHostTools(r *report, p atesor.Platform) {
	r.section("Host tools (rootfs sandbox)")
	missing := sandbox.MissingHostTools(p)
	if len(missing) == 0 {
		var names []string
		for _, t := range sandbox.HostTools(p) {
			names = append(names, t.Name)
		}
		r.ok("%s installed", strings.Join(names, ", "))
	}
	for _, t := range missing {
		r.problem("", "%s is missing (%s); apt package %s", t.Name, t.Purpose, t.Package)
	}
	extra := missingArchiveTools()
	if len(extra) > 0 {
		r.problem("", "gpgv is missing (verifies the signatures of the Debian archive's indexes); apt package gpgv")
	}
	if len(missing) > 0 || len(extra) > 0 {
		r.fixes = append(r.fixes, installCommand(append(sandbox.AptPackages(missing), extra...)))
	}
	if _, err := exec.LookPath("docker"); err == nil {
		r.info("docker is installed (for --sandbox docker)")
	}
}

func doctorIsolation(r *report) {
	r.section("Sandbox isolation (rootfs sandbox)")
	limits, _ := envLimits() // an unreadable setting is the port's error to report
	for _, c := range sandbox.CheckIsolation(limits) {
		switch {
		case c.OK:
			r.ok("%s: %s", c.Name, c.Detail)
		case c.Required:
			r.problem("", "%s: %s", c.Name, c.Detail)
		default:
			r.info("%s: %s", c.Name, c.Detail)
		}
	}
}

func doctorBinfmt(r *report) {
	r.section("binfmt_misc (runs riscv64 programs through qemu)")
	s := sandbox.ReadBinfmt()
	const mount = "mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc"
	switch {
	case !s.Mounted:
		r.problem(mount, "binfmt_misc is not mounted")
		r.fixes = append(r.fixes, "update-binfmts --enable qemu-riscv64   # or: atesor sandbox create (registers it with flag F)")
	case !s.Registered:
		r.problem("update-binfmts --enable qemu-riscv64   # or: atesor sandbox create (registers it with flag F)",
			"qemu-riscv64 is not registered")
	case !s.Enabled:
		r.problem("echo 1 > /proc/sys/fs/binfmt_misc/qemu-riscv64", "qemu-riscv64 is registered but disabled")
	case !s.Fixed():
		r.problem("echo -1 > /proc/sys/fs/binfmt_misc/qemu-riscv64 && atesor sandbox create   # re-registers with flag F",
			"qemu-riscv64 is registered without the F flag (flags %q): the sandbox cannot find the interpreter", s.Flags)
	default:
		r.ok("qemu-riscv64 is registered with flags %s (%s)", s.Flags, s.Interpreter)
	}
}

func doctorSandboxes(ctx context.Context, r *report) {
	r.section("Sandboxes (" + stateHomeText() + "/sandboxes)")
	for _, p := range sandboxPlatforms() {
		k := p.SandboxKey()
		s, err := sandbox.CacheStatus(ctx, p, envSandboxOptions()...)
		switch {
		case err != nil:
			r.problem("", "%s: %v", k, err)
		case s.Busy:
			r.info("%s is being provisioned by another process", k)
		case s.State == sandbox.CacheReady:
			r.ok("%s is ready (made %s, %.0f MiB)", k, dateString(s.Meta.Created), float64(s.Size)/(1<<20))
		case s.State == sandbox.CacheIncomplete:
			r.info("%s is incomplete (an interrupted provisioning); the next port rebuilds it, or run: atesor sandbox create %s", k, profileName(k))
		default:
			r.info("%s is not made yet; the first port makes it (about 3.5 minutes), or run: atesor sandbox create %s", k, profileName(k))
		}
	}
}

func doctorToolchain(ctx context.Context, r *report, p atesor.Platform) {
	r.section("Toolchain (native builds of the compiler backends, binutils and Go tools)")
	info, err := sandbox.AccelStatus(ctx, p, envSandboxOptions()...)
	if err != nil {
		r.problem("", "%s: %v", p.SandboxKey(), err)
		return
	}
	switch info.State {
	case sandbox.CacheReady:
		r.ok("accelerator layers ready at %s (made %s)", info.Path, dateString(info.Meta.Created))
	case sandbox.CacheIncomplete:
		r.info("the accelerator layers are incomplete; the next port makes them again")
	}
	for _, part := range []struct {
		name string
		t    sandbox.ToolchainPart
	}{{"C/C++", info.Toolchain.C}, {"Go", info.Toolchain.Go}} {
		if part.t.Accelerated {
			r.ok("%s: %s", part.name, part.t)
		} else {
			r.info("%s: %s", part.name, part.t)
		}
	}
	r.info("a port with --no-accel runs the emulated toolchain")
	doctorGoReleases(ctx, r)
}

// doctorGoReleases says whether a Go module whose go.mod needs a newer Go than the
// suite's can get that release: the host's go command downloads it (GOPROXY, GOSUMDB).
func doctorGoReleases(ctx context.Context, r *report) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		r.info("no go command on the host: a Go module that needs a newer Go than the suite's cannot get that release (install Go on the host)")
		return
	}
	goEnv := exec.CommandContext(ctx, goCmd, "env", "GOVERSION", "GOPROXY")
	goEnv.Env = hostenv.Environ() // as the Go release fetch runs it
	out, err := goEnv.Output()
	if err != nil {
		r.info("%s env failed (%v): newer Go releases for Go modules may not be fetched", goCmd, err)
		return
	}
	f := strings.Fields(string(out))
	if len(f) < 2 {
		r.info("%s env printed %q: newer Go releases for Go modules may not be fetched", goCmd, out)
		return
	}
	home, _ := memory.Home() // none: the fetcher's own default, as the sandboxes get it
	r.ok("newer Go releases for Go modules: fetched by %s (%s) through GOPROXY=%s into %s", goCmd, f[0], f[1],
		gotool.NewProxyFetcher(home, nil).ModCache())
}

// doctorPerformance says whether performance mode can count guest instructions; it is
// optional (the runs are timed either way), so its absence is not a problem.
func doctorPerformance(r *report) {
	r.section("Performance mode (port --optimize)")
	if err := optimize.CheckCounter(); err != nil {
		r.info("guest instructions are timed, not counted (%v)", err)
		return
	}
	r.ok("guest instructions are counted (the host's qemu-user with TCG plugins, a plugin built with the host's C compiler)")
}

func doctorProvider(ctx context.Context, r *report) {
	r.section("Model provider")
	s, err := provider.LoadSettings()
	var mk *provider.MissingKeyError
	switch {
	case s.Provider == provider.None && err == nil:
		r.ok("%s=none: no model; every LLM step uses its scripted fallback", provider.EnvProvider)
		return
	case errors.As(err, &mk):
		r.problem("", "%s=%s: %s is not set (or holds the placeholder); set it in the environment or a .env file, or port with --offline",
			provider.EnvProvider, s.Provider, mk.Variable)
	case err != nil:
		r.problem("", "%v", err)
		return
	case s.APIKey == "" && s.BaseURL != "":
		r.ok("%s=%s, no %s (none needed with %s set; a gateway that wants one answers 401)", provider.EnvProvider, s.Provider, s.KeyVariable, s.BaseURLVariable)
	default:
		r.ok("%s=%s, %s is set", provider.EnvProvider, s.Provider, s.KeyVariable)
	}
	if err := provider.Linked(s.Provider); err != nil {
		r.problem("", "%v", err)
	}
	r.info("model timeout %s, output cap %d tokens", s.Timeout, s.MaxOutputTokens)
	if err == nil {
		doctorEndpoint(ctx, r, s)
	}
	if strings.TrimSpace(envOr(provider.EnvProvider, "")) == "" {
		r.info("%s is unset, so the default %s is used", provider.EnvProvider, provider.DefaultProvider)
	}
}
