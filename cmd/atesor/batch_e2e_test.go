package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/batch"
	"github.com/eclipse-atesor/atesor-go/internal/e2e"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// e2eCLI is a clean CLI environment whose state home shares the machine's cached
// sandboxes and downloads (symbolic links into the default state home), so the test
// provisions nothing, while its examples, recipe cache and runs are its own.
func e2eCLI(t *testing.T) *cli {
	t.Helper()
	e2e.Short(t)
	e2e.Root(t)
	shared := sandbox.StateHome()
	c := newCLI(t)
	for _, d := range []string{"sandboxes", "downloads"} {
		if err := os.MkdirAll(filepath.Join(shared, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(shared, d), filepath.Join(c.home, d)); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range []string{"ATESOR_DEBIAN_MIRROR", "SSL_CERT_FILE"} {
		if v, ok := os.LookupEnv(k); ok {
			c.env[k] = v
		}
	}
	return c
}

// TestE2EBatchDebianShards ports three Debian source packages by name, offline, one at
// a time, as two shards in two processes, and merges them: zlib and lz4 verify, icmpinfo
// (1990s C that redefines glibc's struct ip) fails with class build. The merged summary
// counts them, every record and report says which Debian source was used, and a second
// merge changes nothing.
func TestE2EBatchDebianShards(t *testing.T) {
	e2e.Long(t)
	c := e2eCLI(t)
	list := filepath.Join(c.dir, "list.txt")
	if err := os.WriteFile(list, []byte("debian:zlib\ndebian:icmpinfo\ndebian:lz4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for i, want := range []string{"zlib", "icmpinfo"} {
		shard := []string{"0/2", "1/2"}[i]
		t0 := time.Now()
		o := c.runFor(30*time.Minute, "batch", "--offline", "--jobs", "1", "--test-timeout", "5m", "--list", list,
			"--shard", shard, "--out", "shard-"+shard[:1])
		t.Logf("shard %s in %s:\n%s", shard, time.Since(t0).Round(time.Second), o.stderr)
		if o.code != exitOK && o.code != exitFailed || !strings.Contains(o.stderr, want) {
			t.Fatalf("shard %s: %s", shard, o)
		}
	}
	o := c.run("merge", "--out", "merged", "shard-0", "shard-1")
	if o.code != exitOK {
		t.Fatalf("merge: %s", o)
	}
	t.Logf("batch of 3 in %s\n%s", time.Since(start).Round(time.Second), o.stdout)
	merged := filepath.Join(c.dir, "merged")
	s, err := batch.ReadSummary(merged)
	if err != nil {
		t.Fatal(err)
	}
	if s.Total != 3 || s.Finished != 3 || s.Succeeded != 2 || s.Failed != 1 || s.ByClass["build"] != 1 ||
		s.ByStatus[atesor.StatusVerified] != 2 || len(s.Shards) != 2 {
		t.Errorf("merged summary: total %d finished %d succeeded %d failed %d by class %v by status %v shards %v",
			s.Total, s.Finished, s.Succeeded, s.Failed, s.ByClass, s.ByStatus, s.Shards)
	}
	for _, r := range s.Packages {
		if r.Origin == nil || r.Origin.Package != r.Name || !strings.HasPrefix(r.Origin.Path, "pool/main/") || len(r.Origin.SHA256) != 64 {
			t.Errorf("%s: origin %+v", r.Name, r.Origin)
		}
		if r.Name == "icmpinfo" && (r.Status.Succeeded() || r.FailureClass != atesor.FailureBuild) {
			t.Errorf("icmpinfo: %s %s %s", r.Status, r.FailureClass, r.Reason)
		}
		rep, err := os.ReadFile(filepath.Join(merged, r.Dir, r.Name+"_report.json"))
		if err != nil || !bytes.Contains(rep, []byte(`"origin"`)) || !bytes.Contains(rep, []byte(r.Origin.SHA256)) {
			t.Errorf("%s: the merged report does not record the Debian source: %v", r.Name, err)
		}
	}
	before, _ := os.ReadFile(filepath.Join(merged, batch.SummaryJSON))
	if o := c.run("merge", "--out", "merged", "shard-0", "shard-1"); o.code != exitOK {
		t.Fatalf("second merge: %s", o)
	}
	after, _ := os.ReadFile(filepath.Join(merged, batch.SummaryJSON))
	if !bytes.Equal(before, after) {
		t.Error("a second merge changed summary.json")
	}
}
