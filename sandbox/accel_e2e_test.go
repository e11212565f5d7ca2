package sandbox_test

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
	"github.com/eclipse-atesor/atesor-go/internal/e2e"
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/verify"
)

// accelPackage is a real package of Debian's archive built the same way with and without
// the accelerated toolchain.
type accelPackage struct {
	pkg, file string           // source package and orig tarball in trixie
	repo      string           // repository name inside the sandbox
	setup     []atesor.Command // not timed
	steps     []atesor.Command // the timed build
	goTools   bool             // the build runs the Go tools (installed by the steps)
}

var (
	// cJSON 1.7.18 with CMake: a C library of one source file whose configure step
	// (28 compiler checks, each an emulated cmake and make around a native compile)
	// is most of its accelerated time.
	accelCJSON = accelPackage{pkg: "cjson", file: "cjson_1.7.18.orig.tar.gz", repo: "cjson", steps: []atesor.Command{
		{Line: "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j2"}}}
	// libdeflate 1.23 with CMake: a small C library (a dozen files and its programs).
	accelLibdeflate = accelPackage{pkg: "libdeflate", file: "libdeflate_1.23.orig.tar.gz", repo: "libdeflate", steps: []atesor.Command{
		{Line: "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j2"}}}
	// brotli 1.1.0 with CMake: a C library whose build is mostly compiling (its encoder).
	accelBrotli = accelPackage{pkg: "brotli", file: "brotli_1.1.0.orig.tar.gz", repo: "brotli", steps: []atesor.Command{
		{Line: "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j2"}}}
	// zlib with its configure script: a small C library, the CI case.
	accelZlib = accelPackage{pkg: "zlib", file: "zlib_1.3.dfsg+really1.3.1.orig.tar.gz", repo: "zlib", steps: []atesor.Command{
		{Line: "./configure && make -j2"}}}
	// pugixml 1.14 with CMake: a C++ library.
	accelPugixml = accelPackage{pkg: "pugixml", file: "pugixml_1.14.orig.tar.gz", repo: "pugixml", steps: []atesor.Command{
		{Line: "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON && cmake --build build -j2"}}}
	// google/uuid 1.6.0: a Go module (its net import links runtime/cgo with gcc).
	accelUUID = accelPackage{pkg: "golang-github-google-uuid", file: "golang-github-google-uuid_1.6.0.orig.tar.gz", repo: "uuid",
		goTools: true, setup: []atesor.Command{
			{Line: "apt-get install -y --no-install-recommends golang-go", Network: true, Dir: "/", Timeout: 30 * time.Minute}},
		steps: []atesor.Command{{Line: "go test -c -o uuid.test ."}}}
)

// accelBuild builds the package in a fresh sandbox, with or without acceleration, and
// returns the SHA-256 of every ELF artifact by path, the toolchain the sandbox reported
// and the wall time of the build steps.
func accelBuild(tb testing.TB, ctx context.Context, p accelPackage, accel bool) (map[string]string, sandbox.Toolchain, time.Duration) {
	tb.Helper()
	tarball := debiantest.SourceTarball(tb, p.pkg, p.file)
	sb := newE2ERootfs(tb, ctx, sandbox.WithAccel(accel), sandbox.WithRepo(p.repo))
	defer sb.Close()
	if err := sb.CopyIn(ctx, tarball, "/workspace/"+p.repo); err != nil {
		tb.Fatal(err)
	}
	run := func(cmds []atesor.Command) time.Duration {
		start := time.Now()
		for _, c := range cmds {
			if c.Timeout == 0 {
				c.Timeout = 60 * time.Minute
			}
			res, err := sb.Exec(ctx, c)
			if err != nil || !res.OK() {
				tb.Fatalf("%s (accel=%t): %q: %v exit %d\n%s", p.pkg, accel, c.Line, err, res.ExitCode, lastBytes(res.Output, 3000))
			}
		}
		return time.Since(start)
	}
	run(p.setup)
	took := run(p.steps)
	arts, err := verify.ScanArtifacts(ctx, sb, "/workspace/"+p.repo, nil)
	if err != nil {
		tb.Fatal(err)
	}
	sums := map[string]string{}
	for _, a := range arts {
		if !a.RISCV64 {
			tb.Errorf("%s: %s is not a riscv64 ELF file (%s)", p.pkg, a.Path, a.Machine)
		}
		sums[a.Path] = a.SHA256
	}
	tc := sb.Toolchain()
	tb.Logf("%s accel=%t: %d ELF artifacts in %s; toolchain %s; changes %v", p.pkg, accel, len(sums), took.Round(time.Second), tc, tc.Changes)
	return sums, tc, took
}

// checkToolchains fails unless the accelerated run really ran the native tools and the
// other did not (else equal hashes would prove nothing).
func checkToolchains(tb testing.TB, p accelPackage, accel, emul sandbox.Toolchain) {
	tb.Helper()
	if !accel.C.Accelerated {
		tb.Fatalf("%s: the accelerated run's C toolchain was emulated: %s", p.pkg, accel.C.Reason)
	}
	if p.goTools && !accel.Go.Accelerated {
		tb.Fatalf("%s: the accelerated run's Go tools were emulated: %s", p.pkg, accel.Go.Reason)
	}
	if emul.C.Accelerated || emul.Go.Accelerated {
		tb.Fatalf("%s: the run with --no-accel was accelerated: %s", p.pkg, emul)
	}
}

// sameArtifacts fails on any artifact whose SHA-256 differs or that only one build made.
func sameArtifacts(tb testing.TB, pkg string, accel, emul map[string]string) {
	tb.Helper()
	if len(emul) == 0 {
		tb.Fatalf("%s: the emulated build made no ELF artifact", pkg)
	}
	paths := map[string]bool{}
	for p := range accel {
		paths[p] = true
	}
	for p := range emul {
		paths[p] = true
	}
	var sorted []string
	for p := range paths {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)
	for _, p := range sorted {
		a, e := accel[p], emul[p]
		switch {
		case a == "":
			tb.Errorf("%s: %s only in the emulated build", pkg, p)
		case e == "":
			tb.Errorf("%s: %s only in the accelerated build", pkg, p)
		case a != e:
			tb.Errorf("%s: %s differs: accelerated %s, emulated %s", pkg, p, a, e)
		default:
			tb.Logf("%s: %s %s equal", pkg, p, a[:16])
		}
	}
}

// TestE2EAccelSameArtifacts builds real packages of Debian's archive with the
// accelerated toolchain and with the emulated one and requires bit-identical artifacts.
// One package per language: zlib (C), pugixml (C++), google/uuid (Go).
func TestE2EAccelSameArtifacts(t *testing.T) {
	e2e.Long(t)
	needE2E(t)
	for _, tc := range []struct {
		name string
		p    accelPackage
	}{{"C", accelZlib}, {"CXX", accelPugixml}, {"Go", accelUUID}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Hour)
			defer cancel()
			accel, at, ad := accelBuild(t, ctx, tc.p, true)
			emul, et, ed := accelBuild(t, ctx, tc.p, false)
			checkToolchains(t, tc.p, at, et)
			sameArtifacts(t, tc.p.pkg, accel, emul)
			t.Logf("%s: accelerated %s, emulated %s, ratio %.2f", tc.p.pkg, ad.Round(time.Second), ed.Round(time.Second), ad.Seconds()/ed.Seconds())
		})
	}
}

// TestE2EAccelAptReplacesToolchain: when apt replaces the compiler inside a run, the
// run goes on with what is installed (a reinstall of the same version is made native
// again), and a C program still builds and links.
func TestE2EAccelAptReplacesToolchain(t *testing.T) {
	e2e.Long(t)
	needE2E(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Minute)
	defer cancel()
	sb := newE2ERootfs(t, ctx, sandbox.WithRepo("hello"))
	defer sb.Close()
	if tc := sb.Toolchain(); !tc.C.Accelerated {
		t.Fatalf("not accelerated at start: %s", tc)
	}
	// cc1 is the wrapper that runs the native cc1 below accel/ (the emulated one only for
	// a compile that loads a plugin).
	cc1 := "/usr/libexec/gcc/riscv64-linux-gnu/14/cc1"
	machine := func() string {
		res, err := sb.Exec(ctx, atesor.Command{Line: "head -c 2 " + cc1 + "; echo; od -An -tx1 -j18 -N2 /usr/libexec/gcc/riscv64-linux-gnu/14/accel/native/cc1", Dir: "/"})
		if err != nil || !res.OK() {
			t.Fatalf("od: %v %+v", err, res)
		}
		if !strings.HasPrefix(res.Stdout, "#!\n") {
			t.Errorf("cc1 is not the wrapper: starts with %q", lastBytes(res.Stdout, 40))
		}
		return strings.TrimSpace(strings.TrimPrefix(res.Stdout, "#!\n"))
	}
	if m := machine(); m != "3e 00" {
		t.Fatalf("the native cc1's e_machine %q, want x86_64 (3e 00)", m)
	}
	res, err := sb.Exec(ctx, atesor.Command{Line: "apt-get install -y --reinstall cpp-14-riscv64-linux-gnu binutils-riscv64-linux-gnu", Network: true, Timeout: 30 * time.Minute})
	if err != nil || !res.OK() {
		t.Fatalf("reinstall: %v %d\n%s", err, res.ExitCode, lastBytes(res.Output, 3000))
	}
	if m := machine(); m != "3e 00" {
		t.Errorf("after the reinstall the native cc1's e_machine %q, want x86_64 again", m)
	}
	if err := sb.WriteFile(ctx, "hello.c", []byte("#include <stdio.h>\nint main(void){puts(\"hi\");return 0;}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = sb.Exec(ctx, atesor.Command{Line: "gcc -O2 -flto -o hello hello.c && ./hello"})
	if err != nil || !res.OK() || strings.TrimSpace(res.Stdout) != "hi" {
		t.Fatalf("build after reinstall: %v %+v", err, res)
	}
	t.Logf("toolchain %s, changes %v", sb.Toolchain(), sb.Toolchain().Changes)
}

// BenchmarkE2EAccelPort builds real packages emulated and accelerated in one run and
// reports the wall-time ratio of the least times of each half (target <= 0.35 on 2 cores
// for a CMake or autotools C library); the artifacts must be equal. Run it on an otherwise
// idle machine: the accelerated half is mostly emulated cmake and make, which other load
// slows as much as the emulated half. Three CMake C libraries span the range: cJSON,
// whose time is mostly its configure checks (emulated by design: cmake and make observe
// the machine), libdeflate, small, and brotli, whose time is mostly compiling; uuid is
// the Go case.
// Run with: ATESOR_E2E=1 go test ./sandbox -run '^$' -bench E2EAccelPort -benchtime 1x
func BenchmarkE2EAccelPort(b *testing.B) {
	needE2E(b)
	for _, bc := range []struct {
		name string
		p    accelPackage
	}{{"C-cJSON", accelCJSON}, {"C-libdeflate", accelLibdeflate}, {"C-brotli", accelBrotli}, {"Go-uuid", accelUUID}} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			// The least time of each half over b.N rounds: other load on the machine
			// only ever adds time, and adds it unevenly to the two halves.
			var accelT, emulT time.Duration
			for i := 0; i < b.N; i++ {
				emul, et, ed := accelBuild(b, ctx, bc.p, false)
				accel, at, ad := accelBuild(b, ctx, bc.p, true)
				checkToolchains(b, bc.p, at, et)
				sameArtifacts(b, bc.p.pkg, accel, emul)
				if i == 0 || ad < accelT {
					accelT = ad
				}
				if i == 0 || ed < emulT {
					emulT = ed
				}
			}
			ratio := accelT.Seconds() / emulT.Seconds()
			b.ReportMetric(ratio, "accel/emulated")
			b.ReportMetric(emulT.Seconds(), "emulated-s")
			b.ReportMetric(accelT.Seconds(), "accel-s")
			b.Logf("%s: least of %d rounds: emulated %s, accelerated %s, ratio %.3f", bc.p.pkg, b.N, emulT, accelT, ratio)
		})
	}
}

func lastBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
