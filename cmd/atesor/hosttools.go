package main

import (
	"bufio"
	"context"
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

// ensureHostTools checks the host prerequisites of the rootfs sandbox. As root it
// installs what is missing with apt; otherwise it returns an error with the exact
// command to run as root.
func ensureHostTools(ctx context.Context, a *app, p atesor.Platform, report func(sandbox.Progress)) error {
	missing := sandbox.MissingHostTools(p)
	if len(missing) == 0 {
		return nil
	}
	pkgs := sandbox.AptPackages(missing)
	err := sandbox.CheckHost(p)
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
	step("host tools installed")
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
