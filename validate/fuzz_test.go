package validate

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	atesor "github.com/eclipse-atesor/atesor-go"
)

func seedCommands(f *testing.F) {
	for _, c := range singleCases {
		f.Add(c.cmd)
	}
	for _, c := range []string{"make && rm -rf /", "bash -c 'bash -c \"rm -rf /\"'", "rm -rf /{a,b}{c,d}{e,f}", "echo {1..100000}", "x=$(y) z", "cat <<E\nE"} {
		f.Add(c)
	}
}

// FuzzSingleCommand: never panics, and whatever it accepts is one simple command.
func FuzzSingleCommand(f *testing.F) {
	seedCommands(f)
	f.Fuzz(func(t *testing.T, cmd string) {
		if SingleCommand(cmd) != nil {
			return
		}
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
		if err != nil {
			t.Fatalf("accepted %q does not parse: %v", cmd, err)
		}
		if len(file.Stmts) != 1 {
			t.Fatalf("accepted %q has %d statements", cmd, len(file.Stmts))
		}
		s := file.Stmts[0]
		ce, ok := s.Cmd.(*syntax.CallExpr)
		if !ok || len(ce.Args) == 0 || s.Background || s.Negated || s.Coprocess || len(s.Redirs) > 0 {
			t.Fatalf("accepted %q is not one simple command", cmd)
		}
		syntax.Walk(file, func(n syntax.Node) bool {
			switch n.(type) {
			case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.Subshell, *syntax.BinaryCmd, *syntax.Redirect, *syntax.ArithmExp, *syntax.FuncDecl:
				t.Fatalf("accepted %q contains %T", cmd, n)
			}
			return true
		})
		if DenyRules(cmd) != nil {
			t.Fatalf("accepted %q breaks the deny rules", cmd)
		}
	})
}

// FuzzFixCommand: never panics; whatever it accepts SingleCommand accepts too.
func FuzzFixCommand(f *testing.F) {
	seedCommands(f)
	f.Fuzz(func(t *testing.T, cmd string) {
		if FixCommand(cmd) == nil && SingleCommand(cmd) != nil {
			t.Fatalf("FixCommand accepted %q that SingleCommand refuses", cmd)
		}
	})
}

// FuzzBuildPlan: never panics; an accepted line passes the deny rules.
func FuzzBuildPlan(f *testing.F) {
	seedCommands(f)
	f.Add("cd build && cmake -B build ..")
	f.Add("make && make check || true")
	f.Fuzz(func(t *testing.T, line string) {
		p := &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "build", Commands: []string{line}}}}
		if BuildPlan(p) == nil && DenyRules(line) != nil {
			t.Fatalf("BuildPlan accepted %q that the deny rules refuse", line)
		}
		StripTestCommands(*p)
		InvestigationCommand(line)
		WorkloadCommand(line, []string{"build/x"})
	})
}

// FuzzDecode: never panics for any input and any answer type.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"purpose":"p","build_system":{"type":"make"},"dependencies":["z"],"needs_custom_plan":false,"complexity":1e308}`,
		`{"phases":[{"name":"b","commands":["make"]}]}`,
		`{"strategies":[{"id":1.5,"actions":[{"type":"patch","file":"x","diff":"@@"}]}],"recommended_strategy_id":null}`,
		`{"investigate":{"commands":[]}}`, `{"primary":[1e3]}`, `[]`, `null`, `{"a":`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if a, err := Decode[atesor.AnalysisAnswer](raw); err == nil {
			pa := a.Analysis()
			if len(pa.Dependencies) > MaxDependencies || pa.Complexity < MinComplexity || pa.Complexity > MaxComplexity {
				t.Fatalf("decoded analysis out of limits: %+v", pa)
			}
			_ = Analysis(&pa)
		}
		if p, err := Decode[atesor.BuildPlan](raw); err == nil {
			_ = BuildPlan(&p)
		}
		if p, err := Decode[atesor.FixProposal](raw); err == nil {
			_ = FixProposal(&p, "/workspace/x")
		}
		_, _ = Decode[atesor.CuratorAnswer](raw)
		_, _ = Decode[atesor.ProgramRun](raw)
		if h, err := Decode[atesor.Harness](raw); err == nil {
			_ = Harness(&h, WithCrate("x"))
		}
	})
}

// FuzzGitOptions: git's option rules never panic, and a word that git reads as
// --upload-pack (any prefix of it, with or without a value, after or before operands) or
// a clone --config of a setting that runs a program is never accepted, whatever else
// the line holds.
func FuzzGitOptions(f *testing.F) {
	for _, s := range []string{"--upload-pa=id", "--u", "--no-upload-pack", "-c", "--conf=core.fsmonitor=id", "--dry-run", "--", "-qu", "--no-no-x", "--=x", "-ccore.pager=x"} {
		f.Add(s, "origin")
	}
	f.Fuzz(func(t *testing.T, word, other string) {
		q, err := syntax.Quote(word, syntax.LangBash)
		if err != nil {
			return
		}
		o, err := syntax.Quote(other, syntax.LangBash)
		if err != nil {
			return
		}
		for _, line := range []string{"git fetch " + q + " " + o, "git " + q + " " + o, "git clone " + o + " " + q, "git -C " + q + " status"} {
			_ = DenyRules(line)
			_ = SingleCommand(line)
			_ = FixCommand(line)
		}
		name, val, _ := strings.Cut(strings.TrimPrefix(word, "--"), "=")
		if strings.HasPrefix(word, "--") && name != "" && strings.HasPrefix("upload-pack", name) && !strings.HasPrefix(other, "-") {
			if DenyRules("git fetch "+q+" "+o) == nil {
				t.Fatalf("git fetch %s %s accepted: %s abbreviates --upload-pack", q, o, word)
			}
		}
		if strings.HasPrefix(word, "--") && name != "" && strings.HasPrefix("config", name) && gitCodeKey(val) {
			if DenyRules("git clone "+o+" "+q) == nil {
				t.Fatalf("git clone %s %s accepted: %s abbreviates --config", o, q, word)
			}
		}
	})
}
