package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

var sandboxUsage = usage{
	synopsis: "atesor sandbox create|status|remove|shell|run [PLATFORM]",
	description: "Manage the cached riscv64 root filesystems of the rootfs sandbox, kept under\n" +
		"<home>/sandboxes/<profile>-riscv64/ (<home> is $ATESOR_HOME, else\n" +
		"$XDG_DATA_HOME/atesor-ai, else ~/.local/share/atesor-ai). PLATFORM is alpine, debian\n" +
		"or ubuntu (default $ATESOR_PLATFORM, else debian); ubuntu shares debian's sandbox.",
	subcommands: [][2]string{
		{"create", "provision the sandbox (reused and checked when cached)"},
		{"status", "show the cached sandboxes (all platforms when none is given)"},
		{"remove", "delete a cached sandbox"},
		{"shell", "an interactive shell in a fresh sandbox (with a package or a kept run)"},
		{"run", "run one command in a fresh sandbox; its exit code is passed through"},
	},
}

func runSandbox(ctx context.Context, a *app, args []string) int {
	return subcommand(ctx, a, "sandbox", sandboxUsage, args, map[string]func(context.Context, *app, []string) int{
		"create": sandboxCreate,
		"status": sandboxStatus,
		"remove": sandboxRemove,
		"shell":  sandboxShell,
		"run":    sandboxRun,
	})
}

// platformArg parses the optional PLATFORM argument of a sandbox command.
func platformArg(a *app, cmd string, pos []string) (atesor.Platform, int, bool) {
	name := envOr("ATESOR_PLATFORM", "debian")
	switch len(pos) {
	case 0:
	case 1:
		name = pos[0]
	default:
		return atesor.Platform{}, usageError(a, cmd, "want at most one PLATFORM"), false
	}
	p, err := knowledge.Profile(name)
	if err != nil {
		return atesor.Platform{}, usageError(a, cmd, "%v", err), false
	}
	return p, 0, true
}

func sandboxCreate(ctx context.Context, a *app, args []string) int {
	fs := flagSet("sandbox create")
	verbose := fs.Bool("v", false, "print every line of the bootstrap output")
	noAccel := fs.Bool("no-accel", false, "do not make the accelerator layers (native compiler backends, binutils and Go tools)")
	u := usage{synopsis: "atesor sandbox create [-v] [--no-accel] [PLATFORM]",
		description: "Provision the riscv64 root filesystem of PLATFORM: check (as root: install) the host\n" +
			"tools, register qemu-riscv64 in binfmt_misc, and bootstrap the root filesystem\n" +
			"(about 3.5 minutes for Debian on 2 cores). A cached one is checked and reused.\n" +
			"For Debian it also makes the accelerator layers (about 2 minutes), unless --no-accel."}
	pos, code, done := parseOrExit(a, fs, u, args)
	if done {
		return code
	}
	p, code, ok := platformArg(a, "sandbox create", pos)
	if !ok {
		return code
	}
	prog := newProgress(a.stderr, a.terminal && !*verbose, *verbose)
	defer prog.Done()
	if err := prepareHost(ctx, a, p, prog.Provision); err != nil {
		prog.Done()
		fmt.Fprintf(a.stderr, "atesor sandbox create: %v\n", err)
		return exitUsage
	}
	dir, err := sandbox.Provision(ctx, p, append(envSandboxOptions(), sandbox.WithProgress(prog.Provision))...)
	prog.Done()
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(a.stderr, "atesor sandbox create: interrupted; nothing half-made is kept, run it again")
			return exitInterrupted
		}
		fmt.Fprintf(a.stderr, "atesor sandbox create: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(a.stdout, "%s: ready at %s\n", p.SandboxKey(), dir)
	if !*noAccel && p.Profile == "debian" {
		prog := newProgress(a.stderr, a.terminal && !*verbose, *verbose)
		_, err := sandbox.ProvisionAccel(ctx, p, append(envSandboxOptions(), sandbox.WithProgress(prog.Provision))...)
		prog.Done()
		if err != nil {
			fmt.Fprintf(a.stderr, "atesor sandbox create: no accelerator (runs stay emulated): %v\n", err)
			return exitOK
		}
		info, err := sandbox.AccelStatus(ctx, p, envSandboxOptions()...)
		if err == nil {
			fmt.Fprintf(a.stdout, "%s: toolchain %s\n", info.Key, info.Toolchain)
		}
	}
	return exitOK
}

// sandboxState is what status reports of one cached root filesystem.
type sandboxState = sandbox.CacheInfo

// sandboxPlatforms are the platforms with distinct sandbox keys (ubuntu shares debian's).
func sandboxPlatforms() []atesor.Platform {
	var out []atesor.Platform
	seen := map[string]bool{}
	for _, n := range knowledge.Names() {
		p, err := knowledge.Profile(n)
		if err == nil && !seen[p.SandboxKey()] {
			seen[p.SandboxKey()] = true
			out = append(out, p)
		}
	}
	return out
}

func sandboxStatus(ctx context.Context, a *app, args []string) int {
	fs := flagSet("sandbox status")
	asJSON := fs.Bool("json", false, "print the status as JSON")
	u := usage{synopsis: "atesor sandbox status [--json] [PLATFORM]",
		description: "Show whether the cached root filesystems exist and when they were made."}
	pos, code, done := parseOrExit(a, fs, u, args)
	if done {
		return code
	}
	platforms := sandboxPlatforms()
	if len(pos) > 0 {
		p, code, ok := platformArg(a, "sandbox status", pos)
		if !ok {
			return code
		}
		platforms = []atesor.Platform{p}
	}
	var states []sandboxState
	for _, p := range platforms {
		s, err := sandbox.CacheStatus(ctx, p, envSandboxOptions()...)
		if err != nil {
			fmt.Fprintf(a.stderr, "atesor sandbox status: %v\n", err)
			return exitFailed
		}
		states = append(states, s)
	}
	if *asJSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(states)
		return exitOK
	}
	for _, s := range states {
		fmt.Fprintf(a.stdout, "%s: %s (%s)\n", s.Key, s.State, s.Path)
		if s.Busy {
			fmt.Fprintf(a.stdout, "  %-12s %s\n", "busy:", "another process is provisioning it")
		}
		if m := s.Meta; m != nil {
			for _, kv := range [][2]string{{"suite", m.Suite}, {"version_id", m.VersionID}, {"created", dateString(m.Created)}, {"apt_updated", dateString(m.AptUpdated)}} {
				if kv[1] != "" {
					fmt.Fprintf(a.stdout, "  %-12s %s\n", kv[0]+":", kv[1])
				}
			}
		}
		if s.Size > 0 {
			fmt.Fprintf(a.stdout, "  %-12s %.1f MiB\n", "size:", float64(s.Size)/(1<<20))
		}
		if s.State == sandbox.CacheAbsent {
			fmt.Fprintf(a.stdout, "  create it with: atesor sandbox create %s\n", profileName(s.Key))
		}
	}
	return exitOK
}

// dateString formats a time for status lines, "" for the zero time.
func dateString(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// profileName is the platform name of a sandbox key (debian-riscv64 -> debian).
func profileName(key string) string {
	return key[:len(key)-len("-riscv64")]
}

func sandboxRemove(ctx context.Context, a *app, args []string) int {
	fs := flagSet("sandbox remove")
	u := usage{synopsis: "atesor sandbox remove [PLATFORM]",
		description: "Delete the cached root filesystem of PLATFORM. The next port or sandbox create\n" +
			"provisions it again. Waits while another process is provisioning it."}
	pos, code, done := parseOrExit(a, fs, u, args)
	if done {
		return code
	}
	p, code, ok := platformArg(a, "sandbox remove", pos)
	if !ok {
		return code
	}
	removed, err := sandbox.RemoveCache(ctx, p, envSandboxOptions()...)
	if err != nil {
		fmt.Fprintf(a.stderr, "atesor sandbox remove: %v\n", err)
		return exitFailed
	}
	if !removed {
		fmt.Fprintf(a.stdout, "%s: nothing to remove\n", p.SandboxKey())
		return exitOK
	}
	fmt.Fprintf(a.stdout, "%s: removed %s\n", p.SandboxKey(), filepath.Join(stateHomeText(), "sandboxes", p.SandboxKey()))
	return exitOK
}
