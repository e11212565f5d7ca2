package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/hostenv"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// installCommand is the exact command that installs the packages.
func installCommand(pkgs []string) string {
	return "apt-get update && apt-get install -y " + strings.Join(pkgs, " ")
}

// prepareHost sets the host up for the root-filesystem sandbox on first use: the host
// tools (see [ensureHostTools]), then qemu-riscv64 in binfmt_misc, which the library
// checks but never registers itself (as root; otherwise the error says what to run).
func prepareHost(ctx context.Context, a *app, p atesor.Platform, report func(sandbox.Progress)) error {
	if err := ensureHostTools(ctx, a, p, report); err != nil {
		return err
	}
	return sandbox.SetupBinfmt()
}

// ensureHostTools checks the host prerequisites of the rootfs sandbox. As root it
// installs what is missing with apt; otherwise it returns an error with the exact
// command to run as root.
func ensureHostTools(ctx context.Context, a *app, p atesor.Platform, report func(sandbox.Progress)) error {
	missing := sandbox.MissingHostTools(p)
	extra := missingArchiveTools()
	if len(missing) == 0 && len(extra) == 0 {
		return nil
	}
	pkgs := append(sandbox.AptPackages(missing), extra...)
	err := sandbox.CheckHost(p)
	if len(extra) > 0 {
		err = errors.Join(err, fmt.Errorf("gpgv is missing (verifies the Debian archive's signed indexes); apt package gpgv"))
	}
	if !a.root {
		return fmt.Errorf("missing host tools (%v); run as root: %s (or run atesor as root, which installs them)", err, installCommand(pkgs))
	}
	if _, lerr := exec.LookPath("apt-get"); lerr != nil {
		return fmt.Errorf("missing host tools (%v) and apt-get is not available: install the packages %s with this system's package manager",
			err, strings.Join(pkgs, ", "))
	}
	start := time.Now()
	step := func(msg string) {
		report(sandbox.Progress{Stage: "host-tools", Message: msg, Elapsed: time.Since(start)})
	}
	step("installing " + strings.Join(pkgs, " ") + " with apt-get")
	for _, args := range [][]string{{"update"}, append([]string{"install", "-y"}, pkgs...)} {
		if err := runApt(ctx, args, func(line string) {
			report(sandbox.Progress{Stage: "bootstrap", Message: line, Elapsed: time.Since(start)})
		}); err != nil {
			return fmt.Errorf("install host tools: apt-get %s: %w; run it yourself: %s", strings.Join(args, " "), err, installCommand(pkgs))
		}
	}
	if err := sandbox.CheckHost(p); err != nil {
		return fmt.Errorf("host tools still missing after apt-get install: %w", err)
	}
	if len(missingArchiveTools()) > 0 {
		return errors.New("host tools still missing after apt-get install: gpgv")
	}
	step("host tools installed")
	return nil
}

// missingArchiveTools lists the apt packages of host tools that the verified Debian
// archive client needs and the host lacks: gpgv checks the InRelease signatures (the
// keyring, debian-archive-keyring, is among the sandbox's host tools).
func missingArchiveTools() []string {
	if _, err := exec.LookPath("gpgv"); err != nil {
		return []string{"gpgv"}
	}
	return nil
}

// runApt runs apt-get non-interactively, passing each output line to line.
func runApt(ctx context.Context, args []string, line func(string)) error {
	cmd := exec.CommandContext(ctx, "apt-get", args...)
	cmd.Env = hostenv.Environ("DEBIAN_FRONTEND=noninteractive") // no provider keys for apt and maintainer scripts
	cmd.Stdin = nil
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	var wg sync.WaitGroup
	wg.Add(1)
	var tail []string
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line(sc.Text())
			tail = append(tail, sc.Text())
			if len(tail) > 5 {
				tail = tail[1:]
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	err := cmd.Run()
	pw.Close()
	wg.Wait()
	if err != nil {
		return fmt.Errorf("%w: %s", err, strings.Join(tail, " | "))
	}
	return nil
}
