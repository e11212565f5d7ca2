package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/batch"
)

func TestBatchUsageErrors(t *testing.T) {
	c := newCLI(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"batch"}, "no sources"},
		{[]string{"batch", "--shard", "2/2", "debian:zlib"}, "0 <= I < N"},
		{[]string{"batch", "--jobs", "0", "debian:zlib"}, "--jobs must be at least 1"},
		{[]string{"batch", "--list", "missing.txt"}, "no such file"},
		{[]string{"batch", "debian:Zlib"}, "not a Debian source package name"},
		{[]string{"merge"}, "at least one shard directory"},
		{[]string{"merge", "--out", "m", "nosuchdir"}, "not a batch output directory"},
		{[]string{"port", "debian:zlib=../x"}, "not a Debian version"},
	}
	for _, tt := range tests {
		o := c.run(tt.args...)
		if o.code != exitUsage || !strings.Contains(o.stderr, tt.want) {
			t.Errorf("atesor %v: want exit 2 and %q; %s", tt.args, tt.want, o)
		}
	}
	o := c.run("batch", "--help")
	for _, want := range []string{"--list", "--jobs", "--shard", "--force", "--rerun", "--no-cache", "JOB_COMPLETION_INDEX", "atesor merge"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("batch --help lacks %q; %s", want, o)
		}
	}
}

// TestBatchHostRun runs a batch of the sample package on the host sandbox, offline: the
// port ends not verified (foreign artifacts), the batch exits 1 with its class in the
// summary, a rerun skips the finished package, and merge combines the output.
func TestBatchHostRun(t *testing.T) {
	c := hostCLI(t)
	list := filepath.Join(c.dir, "list.txt")
	if err := os.WriteFile(list, []byte("# the sample\n"+helloSource(t)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"batch", "--sandbox", "host", "--unsafe-host", "--offline", "--list", list, "--out", "out"}
	o := c.run(args...)
	if o.code != exitFailed || !strings.Contains(o.stderr, "[1/1] hello: not_verified (verify)") ||
		!strings.Contains(o.stdout, "failure class verify:") {
		t.Fatalf("want exit 1 and a verify failure; %s", o)
	}
	out := filepath.Join(c.dir, "out")
	s, err := batch.ReadSummary(out)
	if err != nil {
		t.Fatal(err)
	}
	if s.Total != 1 || s.Failed != 1 || s.ByClass["verify"] != 1 || s.Packages[0].Status != atesor.StatusNotVerified {
		t.Errorf("summary: %+v", s)
	}
	if _, err := os.Stat(filepath.Join(out, "hello", "hello_report.json")); err != nil {
		t.Errorf("the package's outputs are not under OUT/NAME: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, batch.LearnedDir, "fixer_examples.json")); err != nil {
		t.Errorf("the learned examples were not kept: %v", err)
	}
	before, _ := os.ReadFile(filepath.Join(out, batch.ResultsFile))
	o = c.run(args...)
	after, _ := os.ReadFile(filepath.Join(out, batch.ResultsFile))
	if o.code != exitFailed || string(before) != string(after) || strings.Contains(o.stderr, "[1/1]") {
		t.Errorf("a rerun ported the finished package again; %s", o)
	}
	o = c.run("merge", "--out", "merged", "out")
	if o.code != exitOK || !strings.Contains(o.stdout, "batch: 1 package(s): 0 succeeded, 1 failed") {
		t.Errorf("merge; %s", o)
	}
}
