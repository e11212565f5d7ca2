package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

var sandboxUsage = usage{
	synopsis: "atesor sandbox create|status|remove [PLATFORM]",
	description: "Manage the cached riscv64 root filesystems of the rootfs sandbox, kept under\n" +
		"<home>/sandboxes/<profile>-riscv64/ (<home> is $ATESOR_HOME, else\n" +
		"$XDG_DATA_HOME/atesor-ai, else ~/.local/share/atesor-ai). PLATFORM is alpine, debian\n" +
		"or ubuntu (default $ATESOR_PLATFORM, else debian); ubuntu shares debian's sandbox.",
	subcommands: [][2]string{
		{"create", "provision the sandbox (reused and checked when cached)"},
		{"status", "show the cached sandboxes (all platforms when none is given)"},
		{"remove", "delete a cached sandbox"},
	},
}

func runSandbox(ctx context.Context, a *app, args []string) int {
	return subcommand(ctx, a, "sandbox", sandboxUsage, args, map[string]func(context.Context, *app, []string) int{
		"create": sandboxCreate,
		"status": sandboxStatus,
		"remove": sandboxRemove,
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
	u := usage{synopsis: "atesor sandbox create [-v] [PLATFORM]",
		description: "Provision the riscv64 root filesystem of PLATFORM: check (as root: install) the host\n" +
			"tools, register qemu-riscv64 in binfmt_misc, and bootstrap the root filesystem\n" +
			"(about 3.5 minutes for Debian on 2 cores). A cached one is checked and reused."}
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
	if err := ensureHostTools(ctx, a, p, prog.Provision); err != nil {
		prog.Done()
		fmt.Fprintf(a.stderr, "atesor sandbox create: %v\n", err)
		return exitUsage
	}
	dir, err := sandbox.Provision(ctx, p, sandbox.WithProgress(prog.Provision))
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
	return exitOK
}

// sandboxState describes one cached root filesystem.
type sandboxState struct {
	Key   string         `json:"key"`
	Path  string         `json:"path"`
	State string         `json:"state"` // ready, incomplete or absent
	Meta  map[string]any `json:"meta,omitempty"`
}

// readSandboxState reads the cache of a sandbox key under home. A root filesystem is
// ready when its <key>.json metadata exists (provisioning writes it last).
func readSandboxState(home, key string) sandboxState {
	dir := filepath.Join(home, "sandboxes")
	s := sandboxState{Key: key, Path: filepath.Join(dir, key), State: "absent"}
	if _, err := os.Stat(s.Path); err == nil {
		s.State = "incomplete"
	}
	data, err := os.ReadFile(filepath.Join(dir, key+".json"))
	if err != nil {
		return s
	}
	if err := json.Unmarshal(data, &s.Meta); err != nil {
		s.State = "incomplete"
		return s
	}
	if s.State == "incomplete" {
		s.State = "ready"
	}
	return s
}

// sandboxKeys are the distinct sandbox keys of all platforms.
func sandboxKeys() []string {
	var keys []string
	seen := map[string]bool{}
	for _, n := range knowledge.Names() {
		p, err := knowledge.Profile(n)
		if err == nil && !seen[p.SandboxKey()] {
			seen[p.SandboxKey()] = true
			keys = append(keys, p.SandboxKey())
		}
	}
	return keys
}

func sandboxStatus(_ context.Context, a *app, args []string) int {
	fs := flagSet("sandbox status")
	asJSON := fs.Bool("json", false, "print the status as JSON")
	u := usage{synopsis: "atesor sandbox status [--json] [PLATFORM]",
		description: "Show whether the cached root filesystems exist and when they were made."}
	pos, code, done := parseOrExit(a, fs, u, args)
	if done {
		return code
	}
	keys := sandboxKeys()
	if len(pos) > 0 {
		p, code, ok := platformArg(a, "sandbox status", pos)
		if !ok {
			return code
		}
		keys = []string{p.SandboxKey()}
	}
	home := sandbox.StateHome()
	var states []sandboxState
	for _, k := range keys {
		states = append(states, readSandboxState(home, k))
	}
	if *asJSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(states)
		return exitOK
	}
	for _, s := range states {
		fmt.Fprintf(a.stdout, "%s: %s (%s)\n", s.Key, s.State, s.Path)
		for _, k := range []string{"suite", "version_id", "created", "apt_updated"} {
			if v, ok := s.Meta[k]; ok && v != "" {
				fmt.Fprintf(a.stdout, "  %-12s %v\n", k+":", v)
			}
		}
		if s.State == "absent" {
			fmt.Fprintf(a.stdout, "  create it with: atesor sandbox create %s\n", profileName(s.Key))
		}
	}
	return exitOK
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
	home := sandbox.StateHome()
	removed, err := removeSandbox(ctx, home, p.SandboxKey())
	if err != nil {
		fmt.Fprintf(a.stderr, "atesor sandbox remove: %v\n", err)
		return exitFailed
	}
	if !removed {
		fmt.Fprintf(a.stdout, "%s: nothing to remove\n", p.SandboxKey())
		return exitOK
	}
	fmt.Fprintf(a.stdout, "%s: removed %s\n", p.SandboxKey(), filepath.Join(home, "sandboxes", p.SandboxKey()))
	return exitOK
}

// removeSandbox deletes a cached root filesystem under the provisioning lock: first the
// metadata (so it never looks ready half-deleted), then the tree.
func removeSandbox(ctx context.Context, home, key string) (bool, error) {
	dir := filepath.Join(home, "sandboxes")
	root, meta := filepath.Join(dir, key), filepath.Join(dir, key+".json")
	_, errRoot := os.Stat(root)
	_, errMeta := os.Stat(meta)
	if errors.Is(errRoot, fs.ErrNotExist) && errors.Is(errMeta, fs.ErrNotExist) {
		return false, nil
	}
	unlock, err := flock(ctx, filepath.Join(dir, key+".lock"))
	if err != nil {
		return false, err
	}
	defer unlock()
	if err := os.Remove(meta); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("remove %s: %w", meta, err)
	}
	if err := os.RemoveAll(root); err != nil {
		return false, fmt.Errorf("remove %s: %w (files made by root need root to remove)", root, err)
	}
	return true, nil
}

// flock takes an exclusive lock on file, waiting until ctx is done.
func flock(ctx context.Context, file string) (func(), error) {
	f, err := os.OpenFile(file, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", file, err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", file, err)
		}
		t := time.NewTimer(250 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, fmt.Errorf("waiting for %s (another process is provisioning): %w", file, ctx.Err())
		case <-t.C:
		}
	}
}
