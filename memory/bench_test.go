package memory_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/memory"
)

func hundredExamples() []atesor.Example {
	var exs []atesor.Example
	for i := range 100 {
		sb := debian
		if i%3 == 0 {
			sb = alpine
		}
		exs = append(exs, atesor.Example{
			ID: fmt.Sprintf("fixer-auto-%03d", i), Name: "n", Sandbox: sb, Source: "auto",
			BuildSystem:  []atesor.BuildSystem{"cmake", "make", "autotools", "go"}[i%4],
			Tags:         []string{"atomic", "zlib", fmt.Sprintf("tag%d", i)},
			ErrorPattern: fmt.Sprintf(`undefined reference to .__atomic_[a-z]+_%d.|fatal error: h%d\.h`, i, i),
			Trigger:      &atesor.Trigger{HasMain: ptr(i%2 == 0), ModuleDir: []string{"", "api", "go"}[i%3]},
		})
	}
	return exs
}

var benchQuery = atesor.Query{Sandbox: debian, BuildSystem: "cmake", HasMain: ptr(true), ModuleDir: "api",
	ErrorMessage: "/usr/bin/ld: queue.c:(.text+0x4a): undefined reference to `__atomic_load_16' and zlib"}

// BenchmarkRelevant ranks 100 examples of a file for one query, the way the fixer node
// calls it (the file is parsed once and reused while it is unchanged).
func BenchmarkRelevant(b *testing.B) {
	dir := b.TempDir()
	writeExamplesB(b, filepath.Join(dir, "fixer_examples.json"), hundredExamples())
	s, err := memory.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Relevant(ctx, atesor.AgentFixer, benchQuery, 2); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRank ranks 100 examples from scratch, compiling every error pattern.
func BenchmarkRank(b *testing.B) {
	exs := hundredExamples()
	for b.Loop() {
		memory.Rank(exs, benchQuery, 2)
	}
}

func TestRankingIsFast(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("timing")
	}
	dir := t.TempDir()
	writeExamples(t, filepath.Join(dir, "fixer_examples.json"), hundredExamples()...)
	s, err := memory.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := s.Relevant(ctx, atesor.AgentFixer, benchQuery, 2); err != nil { // parse once
		t.Fatal(err)
	}
	// The best of a few short rounds, so that a busy machine does not fail the test.
	const rounds, perRound = 5, 50
	best := time.Duration(1<<63 - 1)
	for range rounds {
		start := time.Now()
		for range perRound {
			if _, err := s.Relevant(ctx, atesor.AgentFixer, benchQuery, 2); err != nil {
				t.Fatal(err)
			}
		}
		best = min(best, time.Since(start)/perRound)
	}
	if best > time.Millisecond {
		t.Errorf("ranking 100 examples takes %v, want well under 1 ms", best)
	}
}
