package sandbox

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/archive"
	"github.com/eclipse-atesor/atesor-go/internal/hostenv"
	"github.com/eclipse-atesor/atesor-go/sandbox/internal/jail"
	"github.com/eclipse-atesor/atesor-go/sandbox/internal/proc"
)

// DefaultSuite is the Debian suite of the root filesystem.
const DefaultSuite = "trixie"

// debianPackages are installed on top of the buildd variant.
var debianPackages = []string{"git", "cmake", "meson", "ninja-build", "pkg-config", "ca-certificates",
	"file", "autoconf", "automake", "libtool"}

// alpinePackages are installed into the Alpine minirootfs.
var alpinePackages = []string{"build-base", "git", "cmake", "meson", "samurai", "pkgconf", "ca-certificates",
	"file", "autoconf", "automake", "libtool", "linux-headers", "bash"}

// aptListsMaxAge is how old the cached apt lists may get before they are refreshed.
const aptListsMaxAge = 24 * time.Hour

// reporter sends progress to the callback and the logger.
type reporter struct {
	o     *options
	start time.Time
	// status, while this process holds a provisioning lock, tells processes waiting for
	// it what this one is doing (see [lockProvisioning]).
	status *statusWriter
}

func (r reporter) report(stage, msg string) {
	r.o.logger.Debug("sandbox: provision", "stage", stage, "msg", msg)
	r.status.note(stage, msg)
	if r.o.progress != nil {
		r.o.progress(Progress{Stage: stage, Message: msg, Elapsed: time.Since(r.start)})
	}
}

// Provision makes sure the cached riscv64 root filesystem of the platform exists under
// the state home (<home>/sandboxes/<profile>-riscv64/) and returns its directory. It
// checks the host prerequisites, sets up binfmt_misc, and then, under a lock file so
// that two processes never build it twice, reuses a complete cache after checking it
// (uname -m is riscv64 and /etc/os-release matches the profile; apt lists are refreshed
// when older than a day), or builds it in a temporary directory that is renamed into
// place only when complete. Steps are reported through [WithProgress].
func Provision(ctx context.Context, p atesor.Platform, opts ...Option) (string, error) {
	o := buildOptions(opts)
	return provision(ctx, p, o)
}

func provision(ctx context.Context, p atesor.Platform, o *options) (string, error) {
	rep := reporter{o: o, start: time.Now()}
	prof := profileOf(p)
	if prof != "debian" && prof != "alpine" {
		return "", fmt.Errorf("sandbox: no root filesystem recipe for platform %q (profile %q)", p.Name, prof)
	}
	rep.report("check", "checking host prerequisites")
	if err := CheckHost(p); err != nil {
		return "", fmt.Errorf("sandbox: host prerequisites: %w", err)
	}
	rep.report("binfmt", "checking qemu-riscv64 in binfmt_misc")
	if err := SetupBinfmt(); err != nil {
		return "", err
	}
	cp := pathsFor(o.home, p)
	if err := os.MkdirAll(cp.dir, 0o755); err != nil {
		return "", fmt.Errorf("sandbox: %w", err)
	}
	rep, unlock, err := lockProvisioning(ctx, cp.lock, rep, "lock")
	if err != nil {
		return "", fmt.Errorf("sandbox: lock: %w", err)
	}
	defer unlock()

	if meta, ok := cp.ready(); ok {
		rep.report("verify", "reusing cached root filesystem "+cp.rootfs)
		if users := liveRuns(runsDir(o.home), cp.key); len(users) == 0 {
			// A cache made before device nodes were dropped; not while overlays use it.
			if err := dropDevices(filepath.Join(cp.rootfs, "dev")); err != nil {
				o.logger.Warn("sandbox: could not remove the cached root filesystem's device nodes", "dir", cp.rootfs, "err", err)
			}
		}
		verr := verifyRootfs(ctx, cp.rootfs, p, o)
		if verr == nil {
			stale := prof == "debian" && time.Since(meta.AptUpdated) > aptListsMaxAge
			if users := liveRuns(runsDir(o.home), cp.key); stale && len(users) > 0 {
				// Writing an overlay's lower directory under a mounted overlay is undefined;
				// the running instances refresh their own lists after a 404.
				rep.report("apt-update", fmt.Sprintf("apt lists are old but %s uses the cache; refreshing later", users[0]))
				stale = false
			}
			if stale {
				rep.report("apt-update", "refreshing apt lists of the cached root filesystem")
				if err := refreshLists(ctx, cp.rootfs, p, o); err != nil {
					return "", err
				}
				meta.AptUpdated = time.Now().UTC()
				if err := writeMeta(cp.meta, meta); err != nil {
					return "", fmt.Errorf("sandbox: %w", err)
				}
			}
			rep.report("ready", cp.rootfs)
			return cp.rootfs, nil
		}
		o.logger.Warn("sandbox: cached root filesystem failed its check; rebuilding", "dir", cp.rootfs, "err", verr)
		rep.report("verify", "cached root filesystem failed its check, rebuilding: "+verr.Error())
	}
	// Not ready: clear leftovers of interrupted runs (we hold the lock), unless live
	// sandbox instances still use the tree as their overlay's lower directory.
	if users := liveRuns(runsDir(o.home), cp.key); len(users) > 0 && exists(cp.rootfs) {
		return "", fmt.Errorf("sandbox: %s needs rebuilding but %w by %s; rerun when those runs are done", cp.rootfs, ErrCacheInUse, users[0])
	}
	_ = os.Remove(cp.meta)
	if err := os.RemoveAll(cp.rootfs); err != nil {
		return "", fmt.Errorf("sandbox: remove stale %s: %w", cp.rootfs, err)
	}
	for _, s := range cp.leftovers() {
		_ = os.RemoveAll(s)
	}
	tmp, err := os.MkdirTemp(cp.dir, "."+cp.key+".tmp-")
	if err != nil {
		return "", fmt.Errorf("sandbox: %w", err)
	}
	defer os.RemoveAll(tmp) // no-op after the rename
	var meta CacheMeta
	if prof == "debian" {
		meta, err = bootstrapDebian(ctx, tmp, p, o, rep)
	} else {
		meta, err = bootstrapAlpine(ctx, tmp, p, o, rep)
	}
	if err != nil {
		return "", err
	}
	if err := dropDevices(tmp); err != nil {
		return "", fmt.Errorf("sandbox: remove the device nodes of the new root filesystem: %w", err)
	}
	rep.report("verify", "checking the new root filesystem")
	if err := verifyRootfs(ctx, tmp, p, o); err != nil {
		return "", err
	}
	if prof == "debian" {
		// mmdebstrap removes the package lists at the end; fetch them once here.
		rep.report("apt-update", "fetching apt lists")
		if err := refreshLists(ctx, tmp, p, o); err != nil {
			return "", err
		}
		meta.AptUpdated = time.Now().UTC()
	}
	if err := os.Rename(tmp, cp.rootfs); err != nil {
		return "", fmt.Errorf("sandbox: %w", err)
	}
	if err := writeMeta(cp.meta, meta); err != nil {
		return "", fmt.Errorf("sandbox: %w", err)
	}
	rep.report("ready", fmt.Sprintf("%s (built in %s)", cp.rootfs, time.Since(rep.start).Round(time.Second)))
	return cp.rootfs, nil
}

// bootstrapDebian runs mmdebstrap into dir; when the suite trixie fails with "File has
// unexpected size" (a mirror mid-update) it retries as stable and checks VERSION_ID=13.
func bootstrapDebian(ctx context.Context, dir string, p atesor.Platform, o *options, rep reporter) (CacheMeta, error) {
	suite := o.suite
	if suite == "" {
		suite = DefaultSuite
	}
	mirror := o.mirror
	if mirror == "" {
		mirror = DebianMirror()
	}
	out, err := runMmdebstrap(ctx, dir, suite, mirror, rep)
	if err != nil && suite == "trixie" && strings.Contains(out, "File has unexpected size") {
		rep.report("bootstrap", "trixie failed with \"File has unexpected size\"; retrying as stable")
		if err := clearDir(dir); err != nil {
			return CacheMeta{}, fmt.Errorf("sandbox: %w", err)
		}
		suite = "stable"
		out, err = runMmdebstrap(ctx, dir, suite, mirror, rep)
		if err == nil {
			if v := osRelease(dir)["VERSION_ID"]; v != "13" {
				return CacheMeta{}, fmt.Errorf("sandbox: suite stable is Debian %q, not 13 (trixie); set the suite or the mirror", v)
			}
		}
	}
	if err != nil {
		return CacheMeta{}, fmt.Errorf("sandbox: mmdebstrap %s (mirror %q): %w\n%s", suite, mirror, err, proc.Tail(out, 4000))
	}
	rel := osRelease(dir)
	return CacheMeta{Platform: p.SandboxKey(), Suite: suite, Mirror: mirror, Created: time.Now().UTC(),
		OSID: rel["ID"], VersionID: rel["VERSION_ID"]}, nil
}

func runMmdebstrap(ctx context.Context, dir, suite, mirror string, rep reporter) (string, error) {
	args := []string{"--architectures=riscv64", "--variant=buildd",
		"--include=" + strings.Join(debianPackages, ","), suite, dir}
	if mirror != "" {
		args = append(args, mirror)
	}
	rep.report("bootstrap", "mmdebstrap "+strings.Join(args, " "))
	return runMmdebstrapArgs(ctx, args, rep, "bootstrap")
}

// runMmdebstrapArgs runs mmdebstrap with args, reporting each output line as stage.
func runMmdebstrapArgs(ctx context.Context, args []string, rep reporter, stage string) (string, error) {
	cmd := exec.CommandContext(ctx, "mmdebstrap", args...)
	cmd.Env = hostenv.Environ("LANG=C.UTF-8") // no provider keys for the bootstrap and its hooks
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	var all strings.Builder
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			all.WriteString(sc.Text() + "\n")
			rep.report(stage, sc.Text())
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	err := cmd.Run()
	pw.Close()
	<-done
	return all.String(), err
}

func clearDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// osRelease parses <root>/etc/os-release (or usr/lib/os-release).
func osRelease(root string) map[string]string {
	m := map[string]string{}
	data, err := os.ReadFile(filepath.Join(root, "etc", "os-release"))
	if err != nil {
		data, _ = os.ReadFile(filepath.Join(root, "usr", "lib", "os-release"))
	}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok {
			continue
		}
		m[k] = strings.Trim(v, `"'`)
	}
	return m
}

// verifyRootfs checks that the root filesystem runs riscv64 programs and is the
// profile's distribution.
func verifyRootfs(ctx context.Context, dir string, p atesor.Platform, o *options) error {
	rel := osRelease(dir)
	want := p.OSReleaseID
	if want == "" {
		want = profileOf(p)
	}
	if rel["ID"] != want {
		return fmt.Errorf("sandbox: %s/etc/os-release has ID=%q, the profile needs %q", dir, rel["ID"], want)
	}
	if want == "debian" && (o.suite == "" || o.suite == "trixie" || o.suite == "stable") && rel["VERSION_ID"] != "13" {
		return fmt.Errorf("sandbox: %s is Debian VERSION_ID=%q, not 13 (trixie)", dir, rel["VERSION_ID"])
	}
	spec := jail.Spec{Root: dir, ReadOnly: true, Env: proc.Env(DefaultPath, SandboxHome, "", "", nil), Dir: "/"}
	res, err := jail.Run(ctx, o.jailConfig(), jail.Command{Spec: spec, Line: "uname -m", Timeout: 2 * time.Minute})
	if err != nil {
		return fmt.Errorf("sandbox: run uname -m in %s: %w", dir, err)
	}
	if got := strings.TrimSpace(res.Stdout); got != "riscv64" {
		return fmt.Errorf("sandbox: uname -m in %s says %q (exit %d: %s), not riscv64; is qemu-riscv64 registered in binfmt_misc?",
			dir, got, res.ExitCode, strings.TrimSpace(proc.Tail(res.Output, 500)))
	}
	return nil
}

// refreshLists runs the profile's package index update inside the root filesystem dir
// itself (used on the cache under its lock).
func refreshLists(ctx context.Context, dir string, p atesor.Platform, o *options) error {
	line := updateCommand(p)
	spec := jail.Spec{Root: dir, Env: proc.Env(DefaultPath, SandboxHome, "", "", nil), Dir: "/"}
	res, err := jail.Run(ctx, o.jailConfig(), jail.Command{Spec: spec, Line: line, Network: true, Timeout: 15 * time.Minute})
	if err != nil {
		return fmt.Errorf("sandbox: %s: %w", line, err)
	}
	if !res.OK() {
		return fmt.Errorf("sandbox: %s failed (exit %d): %s", line, res.ExitCode, proc.Tail(res.Output, 2000))
	}
	return nil
}

// alpineMirrorAndVersion returns the configured Alpine mirror and release.
func alpineMirrorAndVersion(o *options) (string, string, error) {
	mirror, version := o.alpineMirror, o.alpineVersion
	if mirror == "" {
		mirror = os.Getenv("ATESOR_ALPINE_MIRROR")
	}
	if version == "" {
		version = os.Getenv("ATESOR_ALPINE_VERSION")
	}
	if mirror == "" || version == "" {
		return "", "", errors.New("sandbox: the Alpine root filesystem needs a mirror and a release: set ATESOR_ALPINE_MIRROR " +
			"(the URL of the directory that holds v3.x/) and ATESOR_ALPINE_VERSION (for example 3.22.1)")
	}
	return strings.TrimRight(mirror, "/"), version, nil
}

// AlpineMinirootfsURL returns the URL of the riscv64 minirootfs tarball of an Alpine
// release on a mirror.
func AlpineMinirootfsURL(mirror, version string) string {
	branch := version
	if parts := strings.Split(version, "."); len(parts) >= 2 {
		branch = parts[0] + "." + parts[1]
	}
	return fmt.Sprintf("%s/v%s/releases/riscv64/alpine-minirootfs-%s-riscv64.tar.gz", strings.TrimRight(mirror, "/"), branch, version)
}

// fetchAlpineMinirootfs downloads the minirootfs tarball and its .sha256, checks it,
// and unpacks it into dir.
func fetchAlpineMinirootfs(ctx context.Context, mirror, version, dir string) error {
	url := AlpineMinirootfsURL(mirror, version)
	tmp, err := os.CreateTemp("", "alpine-minirootfs-*.tar.gz")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	sum, err := download(ctx, url, tmp)
	if err != nil {
		return fmt.Errorf("sandbox: the Alpine mirror %s is unreachable or lacks release %s: %w", mirror, version, err)
	}
	var want strings.Builder
	if _, err := download(ctx, url+".sha256", &want); err != nil {
		return fmt.Errorf("sandbox: the Alpine mirror %s is unreachable or lacks the checksum of release %s: %w", mirror, version, err)
	}
	fields := strings.Fields(want.String())
	if len(fields) == 0 || !strings.EqualFold(fields[0], sum) {
		return fmt.Errorf("sandbox: %s: SHA-256 %s does not match the published %q", url, sum, strings.TrimSpace(want.String()))
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	// The minirootfs has no single top directory, so nothing is stripped.
	if err := archive.Extract(ctx, tmp.Name(), dir, archive.DefaultLimits()); err != nil {
		return fmt.Errorf("sandbox: unpack Alpine minirootfs: %w", err)
	}
	return nil
}

// download writes the body of url to w and returns its SHA-256.
func download(ctx context.Context, url string, w io.Writer) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(w, h), resp.Body); err != nil {
		return "", fmt.Errorf("GET %s: %w", url, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// bootstrapAlpine unpacks the minirootfs, points apk at the mirror, and installs the
// build tools inside.
func bootstrapAlpine(ctx context.Context, dir string, p atesor.Platform, o *options, rep reporter) (CacheMeta, error) {
	mirror, version, err := alpineMirrorAndVersion(o)
	if err != nil {
		return CacheMeta{}, err
	}
	rep.report("bootstrap", "downloading "+AlpineMinirootfsURL(mirror, version))
	if err := fetchAlpineMinirootfs(ctx, mirror, version, dir); err != nil {
		return CacheMeta{}, err
	}
	branch := "v" + strings.Join(strings.SplitN(version, ".", 3)[:2], ".")
	repos := fmt.Sprintf("%s/%s/main\n%s/%s/community\n", mirror, branch, mirror, branch)
	if err := os.WriteFile(filepath.Join(dir, "etc", "apk", "repositories"), []byte(repos), 0o644); err != nil {
		return CacheMeta{}, fmt.Errorf("sandbox: %w", err)
	}
	line := "apk update && apk add --no-cache " + strings.Join(alpinePackages, " ")
	rep.report("bootstrap", line)
	spec := jail.Spec{Root: dir, Env: proc.Env(DefaultPath, SandboxHome, "", "", nil), Dir: "/"}
	res, err := jail.Run(ctx, o.jailConfig(), jail.Command{Spec: spec, Line: line, Network: true, Timeout: 60 * time.Minute,
		Stderr: progressWriter{rep}, Stdout: progressWriter{rep}})
	if err != nil {
		return CacheMeta{}, fmt.Errorf("sandbox: %s: %w", line, err)
	}
	if !res.OK() {
		return CacheMeta{}, fmt.Errorf("sandbox: %s failed (exit %d): %s", line, res.ExitCode, proc.Tail(res.Output, 2000))
	}
	rel := osRelease(dir)
	return CacheMeta{Platform: p.SandboxKey(), Suite: version, Mirror: mirror, Created: time.Now().UTC(),
		AptUpdated: time.Now().UTC(), OSID: rel["ID"], VersionID: rel["VERSION_ID"]}, nil
}

type progressWriter struct{ rep reporter }

func (w progressWriter) Write(b []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if line != "" {
			w.rep.report("bootstrap", line)
		}
	}
	return len(b), nil
}

// dropDevices removes the device nodes below dir. A root filesystem made by mmdebstrap
// as root holds real ones in /dev (null, zero, random, tty...); the sandbox never sees
// them (bwrap mounts a /dev of its own), but a link to one of them where the host reads
// a file would read the host's device. With none in the tree, and the run's overlay
// mounted nodev, no path of the tree reaches a device.
func dropDevices(dir string) error {
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.Type()&fs.ModeDevice != 0 {
			return os.Remove(p)
		}
		return nil
	})
	return err
}
