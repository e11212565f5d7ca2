package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

func feed(p *progress) {
	p.Event(atesor.Event{Kind: atesor.EventNodeStarted, Node: "build", Elapsed: 61 * time.Second})
	p.Event(atesor.Event{Kind: atesor.EventPhase, Node: "build", Phase: "configure", Elapsed: 62 * time.Second})
	p.Event(atesor.Event{Kind: atesor.EventCommand, Node: "build", Line: "./configure", Elapsed: 62 * time.Second})
	for i := 0; i < 10; i++ {
		p.Event(atesor.Event{Kind: atesor.EventOutput, Node: "build", Line: "checking line " + string(rune('a'+i)), Elapsed: 63 * time.Second})
	}
	p.Event(atesor.Event{Kind: atesor.EventNodeFinished, Node: "build", Err: "exit status 2", Elapsed: 70 * time.Second})
	p.Provision(sandbox.Progress{Stage: "apt-update", Message: "fetching apt lists", Elapsed: 3 * time.Second})
	p.Done()
}

func TestProgressPlain(t *testing.T) {
	var b bytes.Buffer
	feed(newProgress(&b, false, false))
	out := b.String()
	for _, w := range []string{"[01:01] build\n", "[01:02] build: configure\n", "$ ./configure", "[01:10] build failed: exit status 2",
		"| checking line j", "sandbox apt-update: fetching apt lists"} {
		if !strings.Contains(out, w) {
			t.Errorf("plain output does not contain %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "checking line d") || strings.Contains(out, "\x1b[") {
		t.Errorf("plain output keeps more than the last %d lines or has escapes:\n%s", tailLines, out)
	}
}

func TestProgressVerbose(t *testing.T) {
	var b bytes.Buffer
	feed(newProgress(&b, false, true))
	if !strings.Contains(b.String(), "    checking line a") {
		t.Errorf("verbose output lacks output lines:\n%s", b.String())
	}
}

func TestProgressLive(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, true, false)
	feed(p)
	out := b.String()
	if !strings.Contains(out, "\x1b[") || !strings.Contains(out, "build · configure · $ ./configure") {
		t.Errorf("live output lacks the redrawn status block:\n%q", out)
	}
	// After Done the block is cleared: the output ends with a clear sequence, not a status.
	if !strings.HasSuffix(out, "\x1b[J") {
		t.Errorf("live output does not end with the block cleared: %q", out[len(out)-40:])
	}
}

func TestCut(t *testing.T) {
	if got := cut("a\tb\x1b[2Jc", 100); got != `a b\x1b[2Jc` {
		t.Errorf("cut kept control characters: %q", got)
	}
	if got := cut(strings.Repeat("é", 20), 5); got != "éééé…" {
		t.Errorf("cut = %q", got)
	}
}

// TestProgressLiveClock checks that the live block's clock keeps running while a
// command prints nothing.
func TestProgressLiveClock(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, true, false)
	defer p.Done()
	clock := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	p.mu.Lock()
	p.now = func() time.Time { return clock }
	p.mu.Unlock()
	p.Event(atesor.Event{Kind: atesor.EventNodeStarted, Node: "build", Elapsed: 61 * time.Second})
	if !strings.Contains(b.String(), "[01:01] build") {
		t.Fatalf("live block lacks the status line: %q", b.String())
	}
	p.mu.Lock()
	clock = clock.Add(65 * time.Second)
	p.mu.Unlock()
	p.tick()
	if !strings.Contains(b.String(), "[02:06] build") {
		t.Errorf("the clock did not advance on a tick: %q", b.String())
	}
	// An event resets the clock to the pipeline's elapsed time.
	p.Event(atesor.Event{Kind: atesor.EventOutput, Node: "build", Line: "cc -c big.c", Elapsed: 130 * time.Second})
	if !strings.HasSuffix(b.String(), "[02:10] build\n  cc -c big.c\n") {
		t.Errorf("after an event: %q", b.String())
	}
	p.Done()
	n := b.Len()
	p.tick() // after Done nothing is drawn
	if b.Len() != n {
		t.Errorf("a tick after Done drew: %q", b.String()[n:])
	}
}

// The decisions an embedder's events carry are shown to a porter too: a scripted fix, a
// fallback and a warning always; a rejected answer with -v.
func TestProgressShowsDecisions(t *testing.T) {
	events := []atesor.Event{
		{Kind: atesor.EventScriptedFix, Node: "fix", Rule: "missing-package", Line: "install libmnl-dev", Elapsed: 5 * time.Second},
		{Kind: atesor.EventFallback, Node: "analyst", Line: "the analyst gave no valid answer: using the scripted analysis", Elapsed: 6 * time.Second},
		{Kind: atesor.EventWarning, Line: "model x/y has no known price", Elapsed: 7 * time.Second},
		{Kind: atesor.EventAnswerRejected, Node: "fix", Label: "fixer", Model: "m1", Rule: "no-failure-hiding", Err: "it hides failures\nmore", Elapsed: 8 * time.Second},
	}
	for _, verbose := range []bool{false, true} {
		var b bytes.Buffer
		p := newProgress(&b, false, verbose)
		for _, e := range events {
			p.Event(e)
		}
		p.Done()
		out := b.String()
		for _, w := range []string{"[00:05] fix: scripted fix (missing-package): install libmnl-dev", "[00:06] analyst: fallback: the analyst gave no valid answer",
			"[00:07] warning: model x/y has no known price"} {
			if !strings.Contains(out, w) {
				t.Errorf("verbose=%v: output lacks %q:\n%s", verbose, w, out)
			}
		}
		rejected := strings.Contains(out, "fixer's answer from m1 rejected (no-failure-hiding): it hides failures\n")
		if rejected != verbose {
			t.Errorf("verbose=%v: rejected answer shown = %v:\n%s", verbose, rejected, out)
		}
	}
}

// TestProgressProvisioning: the first run says what provisioning does, a line per step
// with its time (mmdebstrap's own step lines, the wait for another process's lock with
// what that process does), and keeps apt's detail and the passing checks off the screen.
func TestProgressProvisioning(t *testing.T) {
	steps := []sandbox.Progress{
		{Stage: "check", Message: "checking host prerequisites"},
		{Stage: "binfmt", Message: "checking qemu-riscv64 in binfmt_misc"},
		{Stage: "lock", Message: "waiting for /h/debian-riscv64.lock (0s waited): process 7 is at bootstrap: I: extracting archives... (for 1m2s)", Elapsed: time.Second},
		{Stage: "lock", Message: "took /h/debian-riscv64.lock after 2m30s", Elapsed: 151 * time.Second},
		{Stage: "bootstrap", Message: "mmdebstrap --architectures=riscv64 --variant=buildd trixie /h/tmp", Elapsed: 152 * time.Second},
		{Stage: "bootstrap", Message: "I: downloading packages with apt...", Elapsed: 160 * time.Second},
		{Stage: "bootstrap", Message: "Get:1 http://mirror trixie/main riscv64 base-files 13.8 [73.0 kB]", Elapsed: 161 * time.Second},
		{Stage: "bootstrap", Message: "I: installing remaining packages inside the chroot...", Elapsed: 250 * time.Second},
		{Stage: "ready", Message: "/h/debian-riscv64", Elapsed: 260 * time.Second},
	}
	for _, tt := range []struct {
		name          string
		verbose       bool
		want, wantNot []string
	}{
		{name: "plain",
			want: []string{"[00:01] sandbox lock: waiting for /h/debian-riscv64.lock (0s waited): process 7 is at bootstrap: I: extracting archives...",
				"[02:31] sandbox lock: took", "[02:40] sandbox bootstrap: I: downloading packages with apt...",
				"[04:10] sandbox bootstrap: I: installing remaining packages", "[02:32] sandbox bootstrap: mmdebstrap --architectures=riscv64",
				"[04:20] sandbox ready: /h/debian-riscv64"},
			wantNot: []string{"Get:1", "checking host prerequisites", "binfmt"}},
		{name: "verbose", verbose: true, want: []string{"Get:1", "sandbox check: checking host prerequisites"}},
	} {
		var b bytes.Buffer
		p := newProgress(&b, false, tt.verbose)
		for _, s := range steps {
			p.Provision(s)
		}
		p.Done()
		for _, w := range tt.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: output lacks %q:\n%s", tt.name, w, b.String())
			}
		}
		for _, w := range tt.wantNot {
			if strings.Contains(b.String(), w) {
				t.Errorf("%s: output has %q:\n%s", tt.name, w, b.String())
			}
		}
	}
}
