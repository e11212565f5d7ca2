package graph

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// TestLogStreamBounded is the attack of a build that prints forever (a configure
// answering its own prompt on a closed stdin): the build log on the host keeps one
// command's first maxCommandLog bytes and says how many it dropped, and a log already
// at maxBuildLog takes no more output at all.
func TestLogStreamBounded(t *testing.T) {
	dir := t.TempDir()
	s := &atesor.State{}
	s.RepoName = "loop"
	s.Request.OutputDir = dir
	r := &run{state: s, log: slog.New(slog.DiscardHandler)}
	prompt := bytes.Repeat([]byte("> select platform:\n  1 --  GNU/Linux\n  q --  quit\n"), 1<<10)
	l := r.startLog("./configure")
	written := 0
	for written < maxCommandLog+len(prompt)*8 {
		if n, err := l.Write(prompt); err != nil || n != len(prompt) {
			t.Fatalf("Write = %d, %v: a bounded log still takes the whole write", n, err)
		}
		written += len(prompt)
	}
	l.end(atesor.CommandResult{ExitCode: 1})
	path := filepath.Join(dir, "loop_build.log")
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() > maxCommandLog+4096 {
		t.Fatalf("the log holds %d bytes of a command that wrote %d; want at most %d", st.Size(), written, maxCommandLog)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tail := string(b[len(b)-400:])
	if !strings.Contains(tail, "more bytes of this command's output are not in the log") || !strings.Contains(tail, "[exit 1,") {
		t.Errorf("the log's end does not say what it dropped:\n%s", tail)
	}

	// A log at its bound in all: the next command's line and exit, no output.
	if err := os.Truncate(path, maxBuildLog); err != nil {
		t.Fatal(err)
	}
	l = r.startLog("make")
	_, _ = l.Write(prompt)
	l.end(atesor.CommandResult{})
	if st, err := os.Stat(path); err != nil || st.Size() > maxBuildLog+1024 {
		t.Fatalf("a full log grew to %d bytes (%v)", st.Size(), err)
	}
}
