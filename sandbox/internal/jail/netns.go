package jail

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go/internal/hostenv"
	"github.com/eclipse-atesor/atesor-go/sandbox/internal/proc"
)

// Every command gets a network namespace of its own: bwrap --unshare-net makes it for a
// command without network (loopback only); for a command with network it is made when
// bwrap's process is cloned, and slirp4netns, attached to it before the command runs, is
// the only one to configure it: a user-mode TCP/IP stack that makes the
// namespace's connections from the host as ordinary sockets. Inside, tap0 is
// 10.0.2.100/24, the gateway 10.0.2.2 and the DNS forwarder 10.0.2.3. With
// --disable-host-loopback the gateway does not lead to the host's 127.0.0.1; "prohibit"
// routes, which the sandbox cannot remove (it has no CAP_NET_ADMIN), keep the host's own
// addresses and link-local addresses (cloud metadata) out of reach.

// slirpGuestDNS is slirp4netns's DNS forwarder inside the namespace.
const slirpGuestDNS = "10.0.2.3"

// blockedNets are never reachable from a command with network, besides the host's own
// addresses: link-local (cloud metadata at 169.254.169.254) and Alibaba Cloud's
// metadata address.
var blockedNets = []string{"169.254.0.0/16", "100.100.100.200/32"}

// slirpArgs returns the slirp4netns command line for the namespace of pid; the ready
// descriptor is 3, and slirp4netns ends when descriptor 4 is closed.
func slirpArgs(pid int) []string {
	return []string{"slirp4netns", "--configure", "--mtu=65520", "--disable-host-loopback",
		"--enable-sandbox", "--enable-seccomp", "--ready-fd=3", "--exit-fd=4", strconv.Itoa(pid), "tap0"}
}

// blockedRoutes returns the `ip -batch` lines that make the host's own IPv4 addresses
// and blockedNets unreachable inside the namespace.
func blockedRoutes(hostAddrs []net.Addr) []string {
	var lines []string
	seen := map[string]bool{}
	add := func(cidr string) {
		if !seen[cidr] {
			seen[cidr] = true
			lines = append(lines, "route add prohibit "+cidr)
		}
	}
	for _, n := range blockedNets {
		add(n)
	}
	for _, a := range hostAddrs {
		ipn, ok := a.(*net.IPNet)
		if !ok || ipn.IP.To4() == nil || ipn.IP.IsLoopback() {
			continue // the namespace's own loopback is not the host's; IPv6 is not routed
		}
		add(ipn.IP.To4().String() + "/32")
	}
	return lines
}

// slirp is a running slirp4netns.
type slirp struct {
	cmd *exec.Cmd
	out bytes.Buffer
	// exit is the write end of slirp4netns's exit descriptor: the kernel closes it when
	// this process dies, even by SIGKILL, and slirp4netns then ends too.
	exit *os.File
}

// startSlirp attaches slirp4netns to the network namespace of pid, waits until it
// configured tap0, and adds the prohibit routes.
func startSlirp(ctx context.Context, pid int) (*slirp, error) {
	bin, err := exec.LookPath("slirp4netns")
	if err != nil {
		return nil, &proc.MissingToolError{Tool: "slirp4netns", Package: "slirp4netns", Purpose: "gives commands with network a user-mode network stack"}
	}
	readyR, readyW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox: slirp4netns: %w", err)
	}
	defer readyR.Close()
	exitR, exitW, err := os.Pipe()
	if err != nil {
		readyW.Close()
		return nil, fmt.Errorf("sandbox: slirp4netns: %w", err)
	}
	args := slirpArgs(pid)
	s := &slirp{cmd: exec.Command(bin, args[1:]...), exit: exitW}
	s.cmd.Stdout, s.cmd.Stderr = &s.out, &s.out
	s.cmd.ExtraFiles = []*os.File{readyW, exitR}
	s.cmd.Env = []string{}
	err = s.cmd.Start()
	readyW.Close()
	exitR.Close()
	if err != nil {
		exitW.Close()
		return nil, fmt.Errorf("sandbox: start slirp4netns: %w", err)
	}
	done := make(chan error, 1)
	go func() {
		b := make([]byte, 1)
		_ = readyR.SetReadDeadline(time.Now().Add(30 * time.Second))
		_, err := readyR.Read(b)
		done <- err
	}()
	select {
	case err = <-done:
	case <-ctx.Done():
		err = context.Cause(ctx)
	}
	if err != nil {
		s.stop()
		if errors.Is(err, io.EOF) {
			err = errors.New("it exited")
		}
		return nil, fmt.Errorf("sandbox: slirp4netns did not configure the network: %w: %s", err, strings.TrimSpace(s.out.String()))
	}
	addrs, _ := net.InterfaceAddrs()
	routes := strings.Join(blockedRoutes(addrs), "\n") + "\n"
	ip := exec.CommandContext(ctx, "nsenter", "--net=/proc/"+strconv.Itoa(pid)+"/ns/net", "ip", "-batch", "-")
	ip.Env = hostenv.Only([]string{"PATH"}) // nsenter finds ip on PATH; nothing else of the host
	ip.Stdin = strings.NewReader(routes)
	if out, err := ip.CombinedOutput(); err != nil {
		s.stop()
		return nil, fmt.Errorf("sandbox: block the host's addresses in the command's network namespace (nsenter, ip -batch): %w: %s", err, strings.TrimSpace(string(out)))
	}
	return s, nil
}

// stop ends slirp4netns.
func (s *slirp) stop() {
	if s == nil || s.cmd.Process == nil {
		return
	}
	s.exit.Close()
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
}

// resolvConf returns the resolver configuration for a command with network: the host's,
// with loopback name servers (unreachable from the namespace) replaced by slirp4netns's
// forwarder, which also serves when the host names none.
func resolvConf(host []byte) []byte {
	var out bytes.Buffer
	servers := 0
	for _, line := range strings.Split(strings.TrimRight(string(host), "\n"), "\n") {
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "nameserver" {
			ip := net.ParseIP(f[1])
			if ip == nil || ip.IsLoopback() || ip.To4() == nil {
				continue
			}
			servers++
		}
		out.WriteString(line + "\n")
	}
	if servers == 0 {
		out.WriteString("nameserver " + slirpGuestDNS + "\n")
	}
	return out.Bytes()
}
