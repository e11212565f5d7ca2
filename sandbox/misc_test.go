package sandbox_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// TestDockerArgs drives the docker backend through a fake docker CLI. The constructor
// only reads binfmt_misc (registering is the caller's explicit step), so the test
// changes nothing on the host.
func TestDockerArgs(t *testing.T) {
	if s := sandbox.ReadBinfmt(); !s.Registered || !s.Enabled {
		t.Skip("needs qemu-riscv64 in binfmt_misc (the docker backend checks it and registers nothing)")
	}
	bin := t.TempDir()
	log := filepath.Join(bin, "args.log")
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> " + log + "\ncase \"$1\" in exec) echo inside;; esac\n"
	if err := os.WriteFile(filepath.Join(bin, "docker"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	t.Setenv("OPENAI_API_KEY", "sk-secret")
	ctx := context.Background()
	d, err := sandbox.NewDocker(ctx, debianPlatform(), sandbox.WithWorkdir(t.TempDir()), sandbox.WithImage("riscv64-test:1"), sandbox.WithCABundle(""),
		sandbox.WithLimits(sandbox.Limits{Memory: 1 << 30, Pids: 500}))
	if err != nil {
		t.Fatal(err)
	}
	res, err := d.Exec(ctx, atesor.Command{Line: "make -j2", Dir: "/workspace/zlib", Env: []string{"CFLAGS=-O2"}})
	if err != nil || strings.TrimSpace(res.Stdout) != "inside" {
		t.Fatalf("%v %+v", err, res)
	}
	if _, err := d.Exec(ctx, atesor.Command{Line: "apt-get install -y x", Network: true}); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(log)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 6 {
		t.Fatalf("docker calls:\n%s", data)
	}
	c := d.Container()
	checks := []string{
		"run -d --rm --platform linux/riscv64 --name " + c + " -v ",
		"network disconnect bridge " + c,
		"exec -i=false -w /workspace/zlib -e PATH=",
		"network connect bridge " + c,
		"exec -i=false -w /workspace -e PATH=",
		"rm -f " + c,
	}
	for i, want := range checks {
		if !strings.Contains(lines[i], want) {
			t.Errorf("call %d = %q, want %q", i, lines[i], want)
		}
	}
	for _, want := range []string{"--cap-drop ALL", "--security-opt no-new-privileges", "--cap-add CHOWN", "--pids-limit 500", "--memory 1073741824"} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("docker run lacks %q: %s", want, lines[0])
		}
	}
	for _, bad := range []string{"seccomp=unconfined", "--privileged", "SYS_ADMIN", "DAC_READ_SEARCH"} {
		if strings.Contains(lines[0], bad) {
			t.Errorf("docker run has %q: %s", bad, lines[0])
		}
	}
	if !strings.Contains(lines[0], ":/workspace -w /workspace ") || !strings.Contains(lines[0], " riscv64-test:1 sleep infinity") ||
		!strings.Contains(lines[2], "-e CFLAGS=-O2 "+c+" /bin/sh -c make -j2") || strings.Contains(string(data), "sk-secret") {
		t.Errorf("docker calls:\n%s", data)
	}
}

func TestPackageManagerCommands(t *testing.T) {
	for line, want := range map[string]bool{"apt-get install -y x": true, "make && apk add x": true, "env A=1 dpkg -l": true,
		"sudo apt install x": true, "make": false, "echo apt-get": false} {
		if sandbox.IsPackageManagerCommand(line) != want {
			t.Errorf("IsPackageManagerCommand(%q) != %v", line, want)
		}
	}
	// The sandbox runs the line it is given: package-name corrections happen before
	// validation, so a rewrite here would run a line no rule checked.
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "apt-get"), []byte("#!/bin/sh\necho \"apt-get $*\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	h := newHost(t)
	line := "apt-get install -y yaml-dev zlib-dev=1:1.3 cmake && echo yaml-dev"
	res, err := h.Exec(context.Background(), atesor.Command{Line: line})
	if err != nil {
		t.Fatal(err)
	}
	want := "apt-get install -y yaml-dev zlib-dev=1:1.3 cmake\nyaml-dev\n"
	if res.Stdout != want || res.Line != line {
		t.Errorf("line %q, stdout %q, want the line as given and %q", res.Line, res.Stdout, want)
	}
}

func TestFaults(t *testing.T) {
	ctx := context.Background()
	segv := atesor.CommandResult{ExitCode: 139, Signal: "SIGSEGV", Output: "Segmentation fault"}
	qemu := atesor.CommandResult{ExitCode: 1, Output: "qemu: uncaught target signal 4 (Illegal instruction) - core dumped"}
	ice := atesor.CommandResult{ExitCode: 1, Output: "gcc: internal compiler error: Segmentation fault signal terminated program cc1", Signal: "SIGSEGV"}
	ice2 := atesor.CommandResult{ExitCode: 1, Output: "collect2: fatal error: ld terminated with signal 11 [Segmentation fault]", Signal: "SIGSEGV"}
	tests := []struct {
		name   string
		first  atesor.CommandResult
		rerun  atesor.CommandResult
		want   sandbox.FaultClass
		nCalls int
	}{
		{"no fault", atesor.CommandResult{ExitCode: 2, Output: "error: x"}, atesor.CommandResult{}, sandbox.FaultNone, 1},
		{"rerun passes", segv, atesor.CommandResult{}, sandbox.FaultInfra, 2},
		{"same crash", qemu, qemu, sandbox.FaultArchitecture, 2},
		{"toolchain crashed differently", ice, ice2, sandbox.FaultInfra, 2},
	}
	for _, tc := range tests {
		sb := sandboxtest.New(t, debianPlatform())
		sb.Add(sandboxtest.Rule{Match: func(atesor.Command) bool { return true }, Result: tc.first, Times: 1})
		sb.Add(sandboxtest.Rule{Match: func(atesor.Command) bool { return true }, Result: tc.rerun})
		_, class, err := sandbox.ExecRetryingFaults(ctx, sb, atesor.Command{Line: "./test"})
		if err != nil || class != tc.want || len(sb.Commands()) != tc.nCalls {
			t.Errorf("%s: class %q err %v calls %d", tc.name, class, err, len(sb.Commands()))
		}
	}
}

func TestCheckHostNamesPackage(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	err := sandbox.CheckHost(debianPlatform())
	var mt *sandbox.MissingToolError
	if !errors.As(err, &mt) || !strings.Contains(err.Error(), "apt-get install -y qemu-user-static") || !strings.Contains(err.Error(), "bubblewrap") {
		t.Errorf("err = %v", err)
	}
}

// TestE2EAlpineMirrorUnreachable provisions for real (binfmt_misc set up as root, lock
// files, the download), so it is in the end-to-end tier.
func TestE2EAlpineMirrorUnreachable(t *testing.T) {
	needE2E(t)
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	alpine := atesor.Platform{Name: "alpine", Profile: "alpine", OSReleaseID: "alpine"}
	if err := sandbox.SetupBinfmt(); err != nil {
		t.Fatal(err)
	}
	_, err := sandbox.Provision(context.Background(), alpine, sandbox.WithHome(t.TempDir()), sandbox.WithAlpine(srv.URL, "3.22.1"))
	if err == nil || !strings.Contains(err.Error(), "Alpine mirror") || !strings.Contains(err.Error(), "unreachable") {
		t.Errorf("err = %v", err)
	}
}

func TestSandboxtestFake(t *testing.T) {
	ctx := context.Background()
	sb := sandboxtest.New(t, debianPlatform())
	sb.SetRepo("pkg")
	sb.On(`^make\b`, sandboxtest.Fail(2, "undefined reference"))
	sb.OnPrefix("cmake", sandboxtest.OK("configured"))
	if res, _ := sb.Exec(ctx, atesor.Command{Line: "make -j2"}); res.ExitCode != 2 || res.Output != "undefined reference" {
		t.Errorf("%+v", res)
	}
	if res, _ := sb.Exec(ctx, atesor.Command{Line: "cmake -B build"}); !res.OK() || res.Stdout != "configured" {
		t.Errorf("%+v", res)
	}
	if err := sb.WriteFile(ctx, "src/a.c", []byte("int a;"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := sb.WriteFile(ctx, "/etc/passwd", []byte("x"), 0o644); !errors.Is(err, sandbox.ErrOutsideRepository) {
		t.Errorf("err = %v", err)
	}
	if got := strings.Join(sb.Lines(), "|"); got != "make -j2|cmake -B build" {
		t.Errorf("lines %q", got)
	}
}
