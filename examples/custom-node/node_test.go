package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/provider/fake"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// The replaced build node runs the plan through the run's sandbox and asks for its note
// through the run's Ask: the commands are in the sandbox and in the events, the note's
// call is in the audit log, and the port verifies as with the built-in node.
func TestBuildNodeInAPipeline(t *testing.T) {
	platform, err := knowledge.Profile("debian")
	if err != nil {
		t.Fatal(err)
	}
	sb := sandboxtest.New(t, platform)
	// "make" leaves the riscv64 program and library the package builds.
	sb.Add(sandboxtest.Rule{
		Match: func(c atesor.Command) bool {
			return strings.HasPrefix(c.Line, "make") && !strings.Contains(c.Line, "check")
		},
		Do: func(sb *sandboxtest.Sandbox, _ atesor.Command) {
			copyFile(t, "../../testdata/elf/riscv64-glibc-hello", filepath.Join(sb.Root(), "workspace/vecsum/vecsum"))
			copyFile(t, "../../testdata/elf/libriscv64-math.a", filepath.Join(sb.Root(), "workspace/vecsum/libvecsum.a"))
		},
	})
	p := fake.New()
	p.QueueLabel("build-notes", fake.Reply{Text: "a vecsum program and its static library"})
	src := filepath.Join(t.TempDir(), "vecsum")
	if err := os.CopyFS(src, os.DirFS("../../testdata/packages/vecsum")); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var events []atesor.Event
	res, err := port(context.Background(), p, sb, src, out, func(e atesor.Event) { events = append(events, e) })
	if err != nil {
		t.Fatal(err)
	}
	if !res.Verified {
		t.Fatalf("status %s (%s)", res.Status, res.Reason)
	}

	// The plan's commands ran in the sandbox, and the node reported each one.
	var commands []string
	note := false
	for _, e := range events {
		if e.Node != "build" {
			continue
		}
		if e.Kind == atesor.EventCommand {
			commands = append(commands, e.Line)
		}
		note = note || (e.Kind == atesor.EventInfo && e.Line == "build note: a vecsum program and its static library")
	}
	if len(commands) == 0 || !note {
		t.Fatalf("build events: commands %q, note %v", commands, note)
	}
	ran := strings.Join(sb.Lines(), "\n")
	for _, c := range commands {
		if !strings.Contains(ran, c) {
			t.Errorf("%q was reported but did not run in the sandbox: %q", c, sb.Lines())
		}
	}
	if got := res.State.ExecutedCommands; len(got) < len(commands) {
		t.Errorf("executed commands %q, want the plan's %q", got, commands)
	}

	// The note's model call is in the audit log under the node's label and name.
	audit, err := os.ReadFile(filepath.Join(out, "agent-call_vecsum.log"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(audit), "ROLE: build-notes") || !strings.Contains(string(audit), `"node":"build"`) {
		t.Errorf("the audit log lacks the build node's call:\n%.3000s", audit)
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		t.Fatal(err)
	}
}
