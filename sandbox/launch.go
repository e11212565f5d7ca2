package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// jail enters commands into a riscv64 root filesystem with bwrap, hardened as the
// package doc's "Security model" says: Docker's capability set, no_new_privs, Docker's
// seccomp profile, read-only and masked kernel interfaces, a network namespace of its
// own (slirp4netns behind it when the command wants network), the host's CA bundle and
// resolver configuration copied in rather than bound, and a cgroup per command with the
// memory and process limits.
type jail struct {
	o       *options
	filter  []byte
	limits  Limits
	cgroups *cgroupHier // nil when the host has none for us
}

// newJail prepares the seccomp program and finds the cgroups.
func newJail(o *options) (*jail, error) {
	filter, err := seccompFilter(dockerCaps)
	if err != nil {
		return nil, err
	}
	j := &jail{o: o, filter: filter, limits: o.limits.resolve()}
	if h, err := findCgroups(); err == nil {
		j.cgroups = &h
		removeStaleCgroups(h)
	} else {
		o.logger.Debug("sandbox: no per-command limits on this host", "why", err)
	}
	return j, nil
}

// jailCommand is one command for [jail.run].
type jailCommand struct {
	spec    bwrapSpec
	line    string
	network bool
	timeout time.Duration
	stdout  io.Writer
	stdin   io.Reader
	stderr  io.Writer
}

// run runs /bin/sh -c line in the root filesystem spec.root.
func (j *jail) run(ctx context.Context, c jailCommand) (atesor.CommandResult, error) {
	if c.network && !c.spec.readOnly {
		if err := j.installHostConfig(c.spec.root); err != nil {
			return atesor.CommandResult{Line: c.line}, err
		}
	}
	secR, secW, err := os.Pipe()
	if err != nil {
		return atesor.CommandResult{Line: c.line}, fmt.Errorf("sandbox: %w", err)
	}
	// The program (a few KiB) fits the pipe's buffer; bwrap reads it to the end.
	if _, err := secW.Write(j.filter); err != nil {
		secR.Close()
		secW.Close()
		return atesor.CommandResult{Line: c.line}, fmt.Errorf("sandbox: seccomp pipe: %w", err)
	}
	secW.Close()
	infoR, infoW, err := os.Pipe()
	if err != nil {
		secR.Close()
		return atesor.CommandResult{Line: c.line}, fmt.Errorf("sandbox: %w", err)
	}
	defer infoR.Close()
	blockR, blockW, err := os.Pipe()
	if err != nil {
		secR.Close()
		infoW.Close()
		return atesor.CommandResult{Line: c.line}, fmt.Errorf("sandbox: %w", err)
	}
	defer blockW.Close()
	spec := c.spec
	spec.seccompFD, spec.infoFD, spec.blockFD = 3, 4, 5
	argv := append(bwrapArgs(spec), "/bin/sh", "-c", c.line)
	started := func(ctx context.Context, pid int) (func(*atesor.CommandResult), error) {
		return j.enter(ctx, pid, infoR, blockW, c.network)
	}
	return run(ctx, process{argv: argv, line: c.line, timeout: c.timeout, stdout: c.stdout, stderr: c.stderr, stdin: c.stdin,
		extraFiles: []*os.File{secR, infoW, blockR}, started: started})
}

// enter finishes the sandbox of a started bwrap (pid): it learns the sandbox's first
// process from bwrap's info descriptor, moves bwrap and the sandbox into the command's
// cgroup, attaches slirp4netns for network, and then lets bwrap run the command.
func (j *jail) enter(ctx context.Context, bwrapPid int, info *os.File, block *os.File, network bool) (func(*atesor.CommandResult), error) {
	_ = info.SetReadDeadline(time.Now().Add(time.Minute))
	var msg struct {
		ChildPid int `json:"child-pid"`
	}
	if err := json.NewDecoder(info).Decode(&msg); err != nil || msg.ChildPid <= 0 {
		return nil, fmt.Errorf("sandbox: bwrap did not start the sandbox (info: %v)", err)
	}
	var cg *commandCgroup
	var sl *slirp
	finish := func(res *atesor.CommandResult) {
		sl.stop()
		if cg != nil {
			cg.annotate(res)
			// Emptying and removing the cgroup can take a few tens of milliseconds while
			// the kernel reaps the sandbox; the result does not wait for it.
			go cg.remove()
		}
	}
	if j.cgroups != nil {
		var err error
		if cg, err = newCommandCgroup(*j.cgroups, j.limits); err != nil {
			return finish, err
		}
		if err := cg.add(append([]int{bwrapPid, msg.ChildPid}, descendants(msg.ChildPid)...)...); err != nil {
			return finish, err
		}
	}
	if network {
		var err error
		if sl, err = startSlirp(ctx, msg.ChildPid); err != nil {
			return finish, err
		}
	}
	if _, err := block.Write([]byte{1}); err != nil {
		return finish, fmt.Errorf("sandbox: release bwrap: %w", err)
	}
	block.Close()
	return finish, nil
}

// descendants returns the pids below pid (from /proc/PID/task/*/children).
func descendants(pid int) []int {
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		tasks, _ := os.ReadDir("/proc/" + strconv.Itoa(p) + "/task")
		for _, t := range tasks {
			data, _ := os.ReadFile("/proc/" + strconv.Itoa(p) + "/task/" + t.Name() + "/children")
			for _, f := range strings.Fields(string(data)) {
				if c, err := strconv.Atoi(f); err == nil {
					out = append(out, c)
					queue = append(queue, c)
				}
			}
		}
	}
	return out
}

// installHostConfig copies the host's CA bundle and resolver configuration into the
// root filesystem (never bind mounts of host files), through an [os.Root] so that links
// the sandbox made cannot redirect the writes.
func (j *jail) installHostConfig(root string) error {
	r, err := os.OpenRoot(root)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	defer r.Close()
	if host, err := os.ReadFile("/etc/resolv.conf"); err == nil || os.IsNotExist(err) {
		if err := writeConfig(r, "etc/resolv.conf", resolvConf(host)); err != nil {
			return fmt.Errorf("sandbox: copy the resolver configuration in: %w", err)
		}
	}
	if ca := j.o.caBundlePath(); ca != "" {
		data, err := os.ReadFile(ca)
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return fmt.Errorf("sandbox: read the CA bundle %s: %w", ca, err)
		}
		if err := writeConfig(r, strings.TrimPrefix(caInside, "/"), data); err != nil {
			return fmt.Errorf("sandbox: copy the CA bundle in: %w", err)
		}
	}
	return nil
}

func writeConfig(r *os.Root, rel string, data []byte) error {
	if err := rootMkdirAll(r, path.Dir(rel), 0o755); err != nil {
		return err
	}
	return writeRootFile(r, rel, strings.NewReader(string(data)), 0o644)
}

// runJailed runs one command in the root filesystem of spec through a jail made for it
// (provisioning's commands; a [Rootfs] keeps its jail).
func runJailed(ctx context.Context, o *options, c jailCommand) (atesor.CommandResult, error) {
	j, err := newJail(o)
	if err != nil {
		return atesor.CommandResult{Line: c.line}, err
	}
	return j.run(ctx, c)
}
