package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox/internal/provision"
)

// HostTool is a host prerequisite of the [Rootfs] sandbox.
type HostTool struct {
	// Name is the program looked up on PATH, or the file's path when File is set.
	Name string
	// Package is the apt package that provides it.
	Package string
	// Purpose says what the sandbox needs it for.
	Purpose string
	// File marks a file that must exist rather than a program.
	File bool

	profiles []string // the profiles that need it; nil means all
}

var hostTools = []HostTool{
	{Name: "qemu-riscv64-static", Package: "qemu-user-static", Purpose: "runs riscv64 programs"},
	{Name: "bwrap", Package: "bubblewrap", Purpose: "enters the sandbox"},
	{Name: "slirp4netns", Package: "slirp4netns", Purpose: "gives commands with network a user-mode network stack that keeps the host out of reach"},
	{Name: "nsenter", Package: "util-linux", Purpose: "enters a command's network namespace to block the host's addresses"},
	{Name: "ip", Package: "iproute2", Purpose: "adds the routes that block the host's addresses"},
	{Name: "mmdebstrap", Package: "mmdebstrap", Purpose: "creates the Debian root filesystem", profiles: []string{"debian"}},
	{Name: "/usr/share/keyrings/debian-archive-keyring.gpg", Package: "debian-archive-keyring", Purpose: "verifies the Debian archive", File: true, profiles: []string{"debian"}},
}

// HostTools returns the host prerequisites of the [Rootfs] sandbox for the platform.
func HostTools(p atesor.Platform) []HostTool {
	var out []HostTool
	for _, t := range hostTools {
		if len(t.profiles) == 0 || slices.Contains(t.profiles, provision.ProfileOf(p)) {
			out = append(out, t)
		}
	}
	return out
}

// Present reports whether the tool is installed.
func (t HostTool) Present() bool {
	if t.File {
		_, err := os.Stat(t.Name)
		return err == nil
	}
	_, err := exec.LookPath(t.Name)
	return err == nil
}

// MissingHostTools returns the host prerequisites of the platform that are not installed.
func MissingHostTools(p atesor.Platform) []HostTool {
	var out []HostTool
	for _, t := range HostTools(p) {
		if !t.Present() {
			out = append(out, t)
		}
	}
	return out
}

// AptPackages returns the distinct apt packages that provide the tools, in order.
func AptPackages(tools []HostTool) []string {
	var pkgs []string
	for _, t := range tools {
		if !slices.Contains(pkgs, t.Package) {
			pkgs = append(pkgs, t.Package)
		}
	}
	return pkgs
}

// CheckHost checks the host prerequisites of the [Rootfs] sandbox for the platform and
// returns a [*MissingToolError] naming the missing tool and its apt package (one per
// missing tool, joined, when several are missing).
func CheckHost(p atesor.Platform) error {
	var errs []error
	for _, t := range MissingHostTools(p) {
		errs = append(errs, &MissingToolError{Tool: t.Name, Package: t.Package, Purpose: t.Purpose})
	}
	return errors.Join(errs...)
}

// binfmtDir is where binfmt_misc is mounted (a variable only so that tests can point it
// at a directory of their own); binfmtEntry is qemu-riscv64's registration in it.
var binfmtDir = "/proc/sys/fs/binfmt_misc"

func binfmtEntry() string { return binfmtDir + "/qemu-riscv64" }

const (
	// The ELF header of a riscv64 executable, as registered by qemu-user-static.
	riscvMagic = `\x7f\x45\x4c\x46\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xf3\x00`
	riscvMask  = `\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff`
)

// BinfmtStatus describes the qemu-riscv64 binfmt_misc registration.
type BinfmtStatus struct {
	Mounted     bool
	Registered  bool
	Enabled     bool
	Interpreter string
	Flags       string
}

// Fixed reports whether the interpreter is opened at registration (flag F), which lets
// it work inside containers and chroots that do not contain it.
func (s BinfmtStatus) Fixed() bool { return strings.Contains(s.Flags, "F") }

// ReadBinfmt reads the qemu-riscv64 registration.
func ReadBinfmt() BinfmtStatus {
	var s BinfmtStatus
	if _, err := os.Stat(binfmtDir + "/register"); err == nil {
		s.Mounted = true
	}
	data, err := os.ReadFile(binfmtEntry())
	if err != nil {
		return s
	}
	s.Registered = true
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case line == "enabled":
			s.Enabled = true
		case strings.HasPrefix(line, "interpreter "):
			s.Interpreter = strings.TrimPrefix(line, "interpreter ")
		case strings.HasPrefix(line, "flags: "):
			s.Flags = strings.TrimPrefix(line, "flags: ")
		}
	}
	return s
}

// SetupBinfmt makes sure binfmt_misc is mounted and qemu-riscv64 is registered, enabled
// and has the F flag. As root it mounts and registers what is missing (replacing a
// registration without F); otherwise it returns an error that says exactly what to run.
// It is the one step of this package that changes the host for every process on it, so
// no constructor takes it: a caller (the atesor CLI on first use) calls it before
// [NewRootfs], [Provision] or [NewDocker]. It does nothing when all is in place.
func SetupBinfmt() error {
	s := ReadBinfmt()
	if s.Mounted && s.Registered && s.Enabled && s.Fixed() {
		return nil
	}
	root := os.Geteuid() == 0
	if !root {
		return fmt.Errorf("sandbox: qemu-riscv64 is not registered in binfmt_misc with the F flag "+
			"(mounted=%v registered=%v enabled=%v flags=%q) and this process is not root; run as root: "+
			"mount -t binfmt_misc binfmt_misc %s; then register it, for example with: update-binfmts --enable qemu-riscv64",
			s.Mounted, s.Registered, s.Enabled, s.Flags, binfmtDir)
	}
	if !s.Mounted {
		if err := syscall.Mount("binfmt_misc", binfmtDir, "binfmt_misc", 0, ""); err != nil {
			return fmt.Errorf("sandbox: mount binfmt_misc on %s: %w (a container may need --privileged)", binfmtDir, err)
		}
	}
	if s.Registered && (!s.Fixed() || !s.Enabled) {
		if err := os.WriteFile(binfmtEntry(), []byte("-1"), 0); err != nil {
			return fmt.Errorf("sandbox: remove the qemu-riscv64 registration without the F flag: %w", err)
		}
	}
	line, err := binfmtLine()
	if err != nil {
		return err
	}
	if err := os.WriteFile(binfmtDir+"/register", []byte(line), 0); err != nil {
		return fmt.Errorf("sandbox: register qemu-riscv64 in binfmt_misc: %w", err)
	}
	if s := ReadBinfmt(); !s.Registered || !s.Fixed() {
		return fmt.Errorf("sandbox: qemu-riscv64 registration did not take the F flag (flags %q)", s.Flags)
	}
	return nil
}

// binfmtLine returns the registration line: the one qemu-user-static ships, with the F
// flag ensured, else one built for qemu-riscv64-static on PATH.
func binfmtLine() (string, error) {
	if data, err := os.ReadFile("/usr/lib/binfmt.d/qemu-riscv64.conf"); err == nil {
		line := strings.TrimSpace(string(bytes.SplitN(data, []byte("\n"), 2)[0]))
		fields := strings.Split(line, ":")
		if len(fields) == 8 {
			if _, err := os.Stat(fields[6]); err == nil {
				if !strings.Contains(fields[7], "F") {
					fields[7] += "F"
				}
				return strings.Join(fields, ":"), nil
			}
		}
	}
	qemu, err := exec.LookPath(hostTools[0].Name)
	if err != nil {
		t := hostTools[0]
		return "", &MissingToolError{Tool: t.Name, Package: t.Package, Purpose: t.Purpose}
	}
	return ":qemu-riscv64:M::" + riscvMagic + ":" + riscvMask + ":" + qemu + ":F", nil
}
