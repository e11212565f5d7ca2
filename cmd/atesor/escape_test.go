package main

import (
	"bytes"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// hostileName is an artifact name a build can choose: a window title, a screen clear,
// an OSC 52 clipboard write, and a line that forges the summary's verdict.
const hostileName = "/workspace/x/lib\x1b]0;pwned\x07\x1b[2J\x1b]52;c;cm0gLXJmIH4K\x07.so\nverdict: verified"

// TestSummaryEscapesArtifactNames: the port summary and the progress lines print a
// hostile artifact name as escapes, with no raw control character and no forged line.
func TestSummaryEscapesArtifactNames(t *testing.T) {
	res := &atesor.Result{Package: "x", Sandbox: "debian-riscv64", Status: atesor.StatusNotVerified,
		FailureClass: atesor.FailureVerify, Reason: "artifact " + hostileName + " is not riscv64",
		Artifacts: []atesor.Artifact{{Path: hostileName, Kind: atesor.KindSharedLibrary, Machine: "EM_X86_64", Role: atesor.ArtifactPrimary, Problem: "\x1b[31mred"}},
		Tests:     &atesor.TestResult{Commands: []string{"make check\x1b[A"}}}
	var b bytes.Buffer
	printVerdict(&b, res)
	var p bytes.Buffer
	prog := newProgress(&p, false, true)
	prog.Event(atesor.Event{Kind: atesor.EventOutput, Line: "built " + hostileName})
	prog.Event(atesor.Event{Kind: atesor.EventInfo, Line: "scan " + hostileName})
	prog.Done()
	for name, out := range map[string]string{"summary": b.String(), "progress": p.String()} {
		if strings.ContainsAny(out, "\x1b\x07\r") {
			t.Errorf("%s holds a raw control character:\n%q", name, out)
		}
		if !strings.Contains(out, `lib\x1b]0;pwned\x07`) {
			t.Errorf("%s does not show the name escaped:\n%s", name, out)
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "verdict: verified") {
				t.Errorf("%s has a forged verdict line:\n%s", name, out)
			}
		}
	}
}

// TestSummarySaysHeaderOnlyEvidence: the summary of a header-only library's port says
// in one line that its test programs are the evidence; other ports print no such line.
func TestSummarySaysHeaderOnlyEvidence(t *testing.T) {
	tests := []struct {
		name string
		inst *atesor.Install
		want string
	}{
		{"header-only", &atesor.Install{OK: true, HeaderOnly: true, Headers: 3, ArtifactsFrom: atesor.ArtifactsFromTestPrograms, PrimaryTestPrograms: 4},
			"  evidence:  header-only library: its 4 test programs, compiled from the staged headers, are the riscv64 evidence\n"},
		{"installed library", &atesor.Install{OK: true, ArtifactsFrom: atesor.ArtifactsFromInstall}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := &atesor.Result{Package: "x", Sandbox: "debian-riscv64", Status: atesor.StatusVerified,
				State: &atesor.State{InstallPart: atesor.InstallPart{Install: tt.inst}}}
			var b bytes.Buffer
			printVerdict(&b, res)
			got := b.String()
			if tt.want != "" && !strings.Contains(got, tt.want) || tt.want == "" && strings.Contains(got, "evidence:") {
				t.Errorf("summary:\n%s\nwant the line %q", got, tt.want)
			}
		})
	}
}
