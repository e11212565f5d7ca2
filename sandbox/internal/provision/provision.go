package provision

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

// ListsMaxAge is how old the cached apt lists may get before they are refreshed.
const ListsMaxAge = 24 * time.Hour

// Reporter sends progress to the callback and the logger.
type Reporter struct {
	cfg   *Config
	start time.Time
	// status, while this process holds a provisioning lock, tells processes waiting for
	// it what this one is doing (see [Lock]).
	status *statusWriter
}

// NewReporter returns a reporter of cfg's progress whose elapsed times count from now.
func NewReporter(cfg Config) Reporter { return Reporter{cfg: cfg.WithDefaults(), start: time.Now()} }

// Elapsed is the time since the reporter was made.
func (r Reporter) Elapsed() time.Duration { return time.Since(r.start) }

// Report sends one step to the progress callback, the logger and, while the reporter's
// process holds a provisioning lock, the lock's status file.
func (r Reporter) Report(stage, msg string) {
	r.cfg.Logger.Debug("sandbox: provision", "stage", stage, "msg", msg)
	r.status.note(stage, msg)
	if r.cfg.Progress != nil {
		r.cfg.Progress(Progress{Stage: stage, Message: msg, Elapsed: time.Since(r.start)})
	}
}

// Rootfs makes sure the cached riscv64 root filesystem of the platform exists under the
// state home (<home>/sandboxes/<profile>-riscv64/) and returns its directory. It checks
// the host's prerequisites and binfmt_misc through the configured checks, and then,
// under a lock file so that two processes never build it twice, reuses a complete cache
// after checking it (uname -m is riscv64 and /etc/os-release matches the profile; apt
// lists are refreshed when older than a day), or builds it in a temporary directory that
// is renamed into place only when complete. Steps are reported to [Config.Progress].
func Rootfs(ctx context.Context, p atesor.Platform, cfg Config) (string, error) {
	return provision(ctx, p, cfg.WithDefaults())
}

func provision(ctx context.Context, p atesor.Platform, cfg *Config) (string, error) {
	rep := Reporter{cfg: cfg, start: time.Now()}
	prof := ProfileOf(p)
	if prof != "debian" && prof != "alpine" {
		return "", fmt.Errorf("sandbox: no root filesystem recipe for platform %q (profile %q)", p.Name, prof)
	}
	rep.Report("check", "checking host prerequisites")
	if err := cfg.CheckHost(p); err != nil {
		return "", fmt.Errorf("sandbox: host prerequisites: %w", err)
	}
	rep.Report("binfmt", "checking qemu-riscv64 in binfmt_misc")
	if err := cfg.CheckBinfmt(); err != nil {
		return "", err
	}
	cp := PathsFor(cfg.Home, p)
	if err := os.MkdirAll(cp.Dir, 0o755); err != nil {
		return "", fmt.Errorf("sandbox: %w", err)
	}
	rep, unlock, err := Lock(ctx, cp.Lock, rep, "lock")
	if err != nil {
		return "", fmt.Errorf("sandbox: lock: %w", err)
	}
	defer unlock()

	if meta, ok := cp.Ready(); ok {
		rep.Report("verify", "reusing cached root filesystem "+cp.Rootfs)
		if users := LiveRuns(RunsDir(cfg.Home), cp.Key); len(users) == 0 {
			// A cache made before device nodes were dropped; not while overlays use it.
			if err := dropDevices(filepath.Join(cp.Rootfs, "dev")); err != nil {
				cfg.Logger.Warn("sandbox: could not remove the cached root filesystem's device nodes", "dir", cp.Rootfs, "err", err)
			}
		}
		verr := verifyRootfs(ctx, cp.Rootfs, p, cfg)
		if verr == nil {
			stale := prof == "debian" && time.Since(meta.AptUpdated) > ListsMaxAge
			if users := LiveRuns(RunsDir(cfg.Home), cp.Key); stale && len(users) > 0 {
				// Writing an overlay's lower directory under a mounted overlay is undefined;
				// the running instances refresh their own lists after a 404.
				rep.Report("apt-update", fmt.Sprintf("apt lists are old but %s uses the cache; refreshing later", users[0]))
				stale = false
			}
			if stale {
				rep.Report("apt-update", "refreshing apt lists of the cached root filesystem")
				if err := refreshLists(ctx, cp.Rootfs, p, cfg); err != nil {
					return "", err
				}
				meta.AptUpdated = time.Now().UTC()
				if err := writeMeta(cp.Meta, meta); err != nil {
					return "", fmt.Errorf("sandbox: %w", err)
				}
			}
			rep.Report("ready", cp.Rootfs)
			return cp.Rootfs, nil
		}
		cfg.Logger.Warn("sandbox: cached root filesystem failed its check; rebuilding", "dir", cp.Rootfs, "err", verr)
		rep.Report("verify", "cached root filesystem failed its check, rebuilding: "+verr.Error())
	}
	// Not ready: clear leftovers of interrupted runs (we hold the lock), unless live
	// sandbox instances still use the tree as their overlay's lower directory.
	if users := LiveRuns(RunsDir(cfg.Home), cp.Key); len(users) > 0 && Exists(cp.Rootfs) {
		return "", fmt.Errorf("sandbox: %s needs rebuilding but %w by %s; rerun when those runs are done", cp.Rootfs, ErrCacheInUse, users[0])
	}
	_ = os.Remove(cp.Meta)
	if err := os.RemoveAll(cp.Rootfs); err != nil {
		return "", fmt.Errorf("sandbox: remove stale %s: %w", cp.Rootfs, err)
	}
	for _, s := range cp.Leftovers() {
		_ = os.RemoveAll(s)
	}
	tmp, err := os.MkdirTemp(cp.Dir, "."+cp.Key+".tmp-")
	if err != nil {
		return "", fmt.Errorf("sandbox: %w", err)
	}
	defer os.RemoveAll(tmp) // no-op after the rename
	var meta CacheMeta
	if prof == "debian" {
		meta, err = bootstrapDebian(ctx, tmp, p, cfg, rep)
	} else {
		meta, err = bootstrapAlpine(ctx, tmp, p, cfg, rep)
	}
	if err != nil {
		return "", err
	}
	if err := dropDevices(tmp); err != nil {
		return "", fmt.Errorf("sandbox: remove the device nodes of the new root filesystem: %w", err)
	}
	rep.Report("verify", "checking the new root filesystem")
	if err := verifyRootfs(ctx, tmp, p, cfg); err != nil {
		return "", err
	}
	if prof == "debian" {
		// mmdebstrap removes the package lists at the end; fetch them once here.
		rep.Report("apt-update", "fetching apt lists")
		if err := refreshLists(ctx, tmp, p, cfg); err != nil {
			return "", err
		}
		meta.AptUpdated = time.Now().UTC()
	}
	if err := os.Rename(tmp, cp.Rootfs); err != nil {
		return "", fmt.Errorf("sandbox: %w", err)
	}
	if err := writeMeta(cp.Meta, meta); err != nil {
		return "", fmt.Errorf("sandbox: %w", err)
	}
	rep.Report("ready", fmt.Sprintf("%s (built in %s)", cp.Rootfs, time.Since(rep.start).Round(time.Second)))
	return cp.Rootfs, nil
}

// bootstrapDebian runs mmdebstrap into dir; when the suite trixie fails with "File has
// unexpected size" (a mirror mid-update) it retries as stable and checks VERSION_ID=13.
func bootstrapDebian(ctx context.Context, dir string, p atesor.Platform, cfg *Config, rep Reporter) (CacheMeta, error) {
	suite := cfg.Suite
	if suite == "" {
		suite = DefaultSuite
	}
	mirror := cfg.Mirror
	if mirror == "" {
		mirror = debianMirror()
	}
	out, err := runMmdebstrap(ctx, dir, suite, mirror, rep)
	if err != nil && suite == "trixie" && strings.Contains(out, "File has unexpected size") {
		rep.Report("bootstrap", "trixie failed with \"File has unexpected size\"; retrying as stable")
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

func runMmdebstrap(ctx context.Context, dir, suite, mirror string, rep Reporter) (string, error) {
	args := []string{"--architectures=riscv64", "--variant=buildd",
		"--include=" + strings.Join(debianPackages, ","), suite, dir}
	if mirror != "" {
		args = append(args, mirror)
	}
	rep.Report("bootstrap", "mmdebstrap "+strings.Join(args, " "))
	return Mmdebstrap(ctx, args, rep, "bootstrap")
}

// Mmdebstrap runs mmdebstrap with args, reporting each output line as stage.
func Mmdebstrap(ctx context.Context, args []string, rep Reporter, stage string) (string, error) {
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
			rep.Report(stage, sc.Text())
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
func verifyRootfs(ctx context.Context, dir string, p atesor.Platform, cfg *Config) error {
	rel := osRelease(dir)
	want := p.OSReleaseID
	if want == "" {
		want = ProfileOf(p)
	}
	if rel["ID"] != want {
		return fmt.Errorf("sandbox: %s/etc/os-release has ID=%q, the profile needs %q", dir, rel["ID"], want)
	}
	if want == "debian" && (cfg.Suite == "" || cfg.Suite == "trixie" || cfg.Suite == "stable") && rel["VERSION_ID"] != "13" {
		return fmt.Errorf("sandbox: %s is Debian VERSION_ID=%q, not 13 (trixie)", dir, rel["VERSION_ID"])
	}
	spec := jail.Spec{Root: dir, ReadOnly: true, Env: proc.Env(proc.DefaultPath, proc.SandboxHome, "", "", nil), Dir: "/"}
	res, err := jail.Run(ctx, cfg.Jail, jail.Command{Spec: spec, Line: "uname -m", Timeout: 2 * time.Minute})
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
func refreshLists(ctx context.Context, dir string, p atesor.Platform, cfg *Config) error {
	line := UpdateCommand(p)
	spec := jail.Spec{Root: dir, Env: proc.Env(proc.DefaultPath, proc.SandboxHome, "", "", nil), Dir: "/"}
	res, err := jail.Run(ctx, cfg.Jail, jail.Command{Spec: spec, Line: line, Network: true, Timeout: 15 * time.Minute})
	if err != nil {
		return fmt.Errorf("sandbox: %s: %w", line, err)
	}
	if !res.OK() {
		return fmt.Errorf("sandbox: %s failed (exit %d): %s", line, res.ExitCode, proc.Tail(res.Output, 2000))
	}
	return nil
}

// alpineMirrorAndVersion returns the configured Alpine mirror and release.
func alpineMirrorAndVersion(cfg *Config) (string, string, error) {
	mirror, version := cfg.AlpineMirror, cfg.AlpineVersion
	if mirror == "" || version == "" {
		return "", "", errors.New("sandbox: the Alpine root filesystem needs a mirror and a release: set ATESOR_ALPINE_MIRROR " +
			"(the URL of the directory that holds v3.x/) and ATESOR_ALPINE_VERSION (for example 3.22.1)")
	}
	return strings.TrimRight(mirror, "/"), version, nil
}

// alpineMinirootfsURL returns the URL of the riscv64 minirootfs tarball of an Alpine
// release on a mirror.
func alpineMinirootfsURL(mirror, version string) string {
	branch := version
	if parts := strings.Split(version, "."); len(parts) >= 2 {
		branch = parts[0] + "." + parts[1]
	}
	return fmt.Sprintf("%s/v%s/releases/riscv64/alpine-minirootfs-%s-riscv64.tar.gz", strings.TrimRight(mirror, "/"), branch, version)
}

// fetchAlpineMinirootfs downloads the minirootfs tarball and its .sha256, checks it,
// and unpacks it into dir.
func fetchAlpineMinirootfs(ctx context.Context, cfg *Config, mirror, version, dir string) error {
	url := alpineMinirootfsURL(mirror, version)
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
func bootstrapAlpine(ctx context.Context, dir string, p atesor.Platform, cfg *Config, rep Reporter) (CacheMeta, error) {
	mirror, version, err := alpineMirrorAndVersion(cfg)
	if err != nil {
		return CacheMeta{}, err
	}
	rep.Report("bootstrap", "downloading "+alpineMinirootfsURL(mirror, version))
	if err := fetchAlpineMinirootfs(ctx, cfg, mirror, version, dir); err != nil {
		return CacheMeta{}, err
	}
	branch := "v" + strings.Join(strings.SplitN(version, ".", 3)[:2], ".")
	repos := fmt.Sprintf("%s/%s/main\n%s/%s/community\n", mirror, branch, mirror, branch)
	if err := os.WriteFile(filepath.Join(dir, "etc", "apk", "repositories"), []byte(repos), 0o644); err != nil {
		return CacheMeta{}, fmt.Errorf("sandbox: %w", err)
	}
	line := "apk update && apk add --no-cache " + strings.Join(alpinePackages, " ")
	rep.Report("bootstrap", line)
	spec := jail.Spec{Root: dir, Env: proc.Env(proc.DefaultPath, proc.SandboxHome, "", "", nil), Dir: "/"}
	res, err := jail.Run(ctx, cfg.Jail, jail.Command{Spec: spec, Line: line, Network: true, Timeout: 60 * time.Minute,
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

type progressWriter struct{ rep Reporter }

func (w progressWriter) Write(b []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if line != "" {
			w.rep.Report("bootstrap", line)
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
