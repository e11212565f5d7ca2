package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// refuseRm is a stand-in fix command validator for the unit tests.
func refuseRm(cmd string) error {
	if strings.HasPrefix(cmd, "rm ") {
		return errors.New("destructive")
	}
	return nil
}

func TestLintExampleFile(t *testing.T) {
	const head = `{"version": "2.0", "description": "d", "general_guidelines": [], "examples": [`
	tests := []struct {
		name string
		file string
		doc  string
		want []string // problem messages, in order (prefix match)
	}{
		{name: "clean", file: "scout_examples.json",
			doc:  head + `{"id": "scout-1", "name": "n", "tags": [], "build_system": "make", "sandbox": "debian-riscv64", "plan": [{"name": "b", "commands": ["apt-get install -y make", "make"]}]}]}`,
			want: nil},
		{name: "auto example with auto id is fine", file: "scout_examples.json",
			doc:  head + `{"id": "scout-auto-001", "source": "auto", "name": "n", "tags": [], "build_system": "make", "sandbox": "alpine-riscv64", "plan": [{"name": "b", "commands": ["apk add make && make"]}]}]}`,
			want: nil},
		{name: "missing source means manual", file: "scout_examples.json",
			doc:  head + `{"id": "scout-auto-002", "name": "n", "tags": [], "build_system": "make", "sandbox": "alpine-riscv64"}]}`,
			want: []string{"a manual example must not use the auto-learned id form"}},
		{name: "apt in alpine through sudo", file: "builder_examples.json",
			doc:  head + `{"id": "b-1", "name": "n", "tags": [], "build_system": "make", "sandbox": "alpine-riscv64", "phases": [{"name": "deps", "commands": ["sudo apt-get install -y zlib1g-dev"]}]}]}`,
			want: []string{`command "sudo apt-get install -y zlib1g-dev" uses apt-get in sandbox alpine-riscv64`}},
		{name: "unknown sandbox", file: "fixer_examples.json",
			doc:  head + `{"id": "f-1", "name": "n", "tags": [], "build_system": "make", "sandbox": "arch-riscv64"}]}`,
			want: []string{`unknown sandbox "arch-riscv64"`}},
		{name: "no name, no build system, no id", file: "fixer_examples.json",
			doc:  head + `{"tags": [], "sandbox": "debian-riscv64"}]}`,
			want: []string{"no id", "no name", "no build_system"}},
		{name: "refused fix command", file: "fixer_examples.json",
			doc:  head + `{"id": "f-2", "name": "n", "tags": [], "build_system": "make", "sandbox": "debian-riscv64", "fix": {"analysis": "", "strategy": "", "actions": [{"type": "patch", "file": "a", "diff": "rm x"}, {"type": "command", "command": "rm -rf build"}]}}]}`,
			want: []string{`fix action 2 "rm -rf build" is refused: destructive`}},
		{name: "duplicate key", file: "fixer_examples.json",
			doc:  head + `{"id": "f-3", "id": "f-4"}]}`,
			want: []string{"duplicate key"}},
		{name: "not json", file: "fixer_examples.json", doc: `{"version": `, want: []string{"invalid JSON"}},
		{name: "legacy supervisor file", file: "supervisor_examples.json",
			doc: `{"version": "1.0", "examples": [{"context": "c", "expected_output": "o"}]}`, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := lintExampleFile(tt.file, []byte(tt.doc), refuseRm)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d problems %v, want %d %v", len(got), got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(strings.ToLower(got[i].Msg), strings.ToLower(w)) {
					t.Errorf("problem %d = %q, want it to contain %q", i, got[i].Msg, w)
				}
			}
		})
	}
}

func TestCommandWords(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{"make", []string{"make"}},
		{"CC=gcc make -j4 && sudo /sbin/apk add x; env A=b apt-get update | tee log", []string{"make", "apk", "apt-get", "tee"}},
		{"(cd build && cmake ..) || true", []string{"cd", "cmake", "true"}},
		{"", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, commandWords(tt.line)); diff != "" {
			t.Errorf("commandWords(%q) mismatch (-want +got):\n%s", tt.line, diff)
		}
	}
}

func FuzzLintExampleFile(f *testing.F) {
	f.Add([]byte(`{"version": "2.0", "description": "", "general_guidelines": [], "examples": [{"id": "x", "sandbox": "debian-riscv64", "error_pattern": "(", "fix": {"actions": [{"type": "command", "command": "apk add x"}]}}]}`))
	f.Add([]byte(`{"examples": null}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, p := range lintExampleFile("fixer_examples.json", data, refuseRm) {
			if p.Msg == "" {
				t.Fatal("a problem without a message")
			}
		}
	})
}
