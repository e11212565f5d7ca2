package graph

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/archive"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

const hostileMain = "#include <stdio.h>\nint main(void) { puts(\"hostile ok\"); return 0; }\n"

// writePackage writes a tiny package (main.c and the given Makefile) into a new directory.
func writePackage(t *testing.T, makefile string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.c"), []byte(hostileMain), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte(makefile), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// noLinksOut fails when anything under dir is a symbolic link, a device or a FIFO: the
// outputs of a port hold regular files and directories only.
func noLinksOut(t *testing.T, dir string) {
	t.Helper()
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !d.Type().IsRegular() {
			t.Errorf("the outputs hold %s (%s)", p, d.Type())
		}
		return nil
	})
}

// TestE2ECopyOutHostile ports, offline in the real sandbox, a package whose tests
// attack the copy-out after verification: they turn the program `hostile` into a
// directory holding a link to a host directory, replace `zprog` by a link to /dev/zero
// and grow `bigprog` into a 3 GiB sparse file. The port ends not verified (class
// verify) naming all three, quickly, with nothing copied but regular files. Then a
// second package of the same name, whose artifact is hostile/x/authorized_keys, is
// ported into the same output directory where the link an older copy-out wrote
// (hostile_artifacts/hostile/x -> the host directory) was planted: the run empties the
// folder first, so the host directory stays empty and the artifact is a regular file.
func TestE2ECopyOutHostile(t *testing.T) {
	e2e(t)
	e := newE2EEnv(t)
	host := t.TempDir() // a host directory the package aims at
	first := writePackage(t, fmt.Sprintf(`CC ?= cc
all: hostile zprog bigprog
hostile zprog bigprog: main.c
	$(CC) -O2 -o $@ main.c
check:
	rm -f hostile && mkdir hostile && ln -s %s hostile/x
	ln -sf /dev/zero zprog
	truncate -s 3G bigprog
`, host))
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	start := time.Now()
	res, err := e.pipeline(t, nil).Run(ctx, atesor.Request{Source: first, Name: "hostile", Force: true, TestTimeout: 3 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("first port: %s (%s) in %s: %s", res.Status, res.FailureClass, time.Since(start).Round(time.Second), res.Reason)
	rep := e.report(t, "hostile")
	if res.Verified || res.FailureClass != atesor.FailureVerify {
		t.Fatalf("the attacked port ended %s (%s), want not verified: %s", res.Status, res.FailureClass, res.Reason)
	}
	problems := strings.Join(rep.VerifyProblems, "\n")
	for _, want := range []string{"/workspace/hostile/hostile", "directory", "/workspace/hostile/zprog", "symbolic link", "/workspace/hostile/bigprog", sandbox.EnvCopyMaxFileBytes} {
		if !strings.Contains(problems, want) {
			t.Errorf("the problems do not say %q:\n%s", want, problems)
		}
	}
	noLinksOut(t, e.out)
	if entries, _ := os.ReadDir(host); len(entries) != 0 {
		t.Errorf("the host directory holds %v", entries)
	}

	// What an older copy-out left: the artifact directory holding the link to the host.
	planted := filepath.Join(e.out, "hostile_artifacts", "hostile")
	if err := os.MkdirAll(planted, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(host, filepath.Join(planted, "x")); err != nil {
		t.Fatal(err)
	}
	second := writePackage(t, `CC ?= cc
all: hostile/x/authorized_keys
hostile/x/authorized_keys: main.c
	mkdir -p hostile/x && $(CC) -O2 -o $@ main.c
`)
	start = time.Now()
	res, err = e.pipeline(t, nil).Run(ctx, atesor.Request{Source: second, Name: "hostile", Force: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("second port: %s (%s) in %s: %s", res.Status, res.FailureClass, time.Since(start).Round(time.Second), res.Reason)
	if !res.Verified {
		t.Fatalf("the second port ended %s (%s): %s", res.Status, res.FailureClass, res.Reason)
	}
	if entries, _ := os.ReadDir(host); len(entries) != 0 {
		t.Errorf("the second run wrote into the host directory: %v", entries)
	}
	fi, err := os.Lstat(filepath.Join(e.out, "hostile_artifacts", "hostile", "x", "authorized_keys"))
	if err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the artifact is %v %v, want a regular file in the output directory", fi, err)
	}
	noLinksOut(t, e.out)
}

// hardLinkBomb writes a source tarball of a Makefile, one 10 MiB file and 200 hard links
// to it: about 12 KB compressed, 2 GiB once every name is a file.
func hardLinkBomb(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "bomb-1.0.tar.gz")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	add := func(h *tar.Header, data []byte) {
		h.Mode, h.ModTime = 0o644, time.Unix(1700000000, 0)
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	mk := []byte("all:\n\ttrue\n")
	add(&tar.Header{Name: "bomb-1.0/Makefile", Typeflag: tar.TypeReg, Size: int64(len(mk))}, mk)
	add(&tar.Header{Name: "bomb-1.0/data", Typeflag: tar.TypeReg, Size: 10 << 20}, make([]byte, 10<<20))
	for i := range 200 {
		add(&tar.Header{Name: fmt.Sprintf("bomb-1.0/link%03d", i), Typeflag: tar.TypeLink, Linkname: "bomb-1.0/data"}, nil)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestE2EDiskBounds ports two hostile packages offline: a source tarball of one 10 MiB
// file and 200 hard links to it, under a 1 GiB extraction bound, is refused before any
// sandbox opens, naming the variable that raises the bound; and a package whose build
// writes 800 MiB, under a 200 MiB bound on the run's sandbox, has its build killed while
// it writes, the port ending with class infra and a reason naming ATESOR_SANDBOX_DISK.
func TestE2EDiskBounds(t *testing.T) {
	e2e(t)
	e := newE2EEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()

	e.configure = func(c *Config) { c.ExtractMaxBytes = 1 << 30 } // ATESOR_EXTRACT_MAX_BYTES=1G on the CLI
	start := time.Now()
	_, err := e.pipeline(t, nil).Run(ctx, atesor.Request{Source: hardLinkBomb(t), Force: true})
	t.Logf("hard-link bomb: %v (%s)", err, time.Since(start).Round(time.Millisecond))
	if err == nil || !strings.Contains(err.Error(), archive.EnvMaxBytes) {
		t.Fatalf("the hard-link bomb unpacked: %v", err)
	}

	e.open = func(ctx context.Context, p atesor.Platform) (atesor.Sandbox, error) {
		return sandbox.NewRootfs(ctx, p, sandbox.WithLimits(sandbox.Limits{Disk: 200 << 20})) // what ATESOR_SANDBOX_DISK=200M gives on the CLI
	}
	filler := writePackage(t, `all:
	i=0; while [ $$i -lt 100 ]; do head -c 8M /dev/zero > fill.$$i || exit 1; i=$$((i+1)); done
`)
	start = time.Now()
	res, err := e.pipeline(t, nil).Run(ctx, atesor.Request{Source: filler, Name: "filler", Force: true, MaxAttempts: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("filler: %s (%s) in %s: %s", res.Status, res.FailureClass, time.Since(start).Round(time.Second), res.Reason)
	if res.Verified || res.FailureClass != atesor.FailureInfra || !strings.Contains(res.Reason, sandbox.EnvDiskLimit) {
		t.Fatalf("the filler ended %s (%s): %s", res.Status, res.FailureClass, res.Reason)
	}
	if !strings.Contains(res.Reason, "was stopped") {
		t.Errorf("the reason does not say the command was stopped: %s", res.Reason)
	}
}
