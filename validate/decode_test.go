package validate

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
)

func TestDecodeMinimalAndExtraKeys(t *testing.T) {
	check := func(name string, f func([]byte) error, minimal, extra string) {
		t.Helper()
		if err := f([]byte(minimal)); err != nil {
			t.Errorf("%s minimal: %v", name, err)
		}
		if err := f([]byte(extra)); err != nil {
			t.Errorf("%s with extra keys: %v", name, err)
		}
	}
	check("analysis", func(b []byte) error { _, err := Decode[atesor.AnalysisAnswer](b); return err },
		`{"purpose":"zlib compression library","build_system":{"type":"cmake"},"dependencies":[],"needs_custom_plan":false}`,
		`{"purpose":"p","build_system":{"type":"make","why":"x"},"dependencies":[{"name":"zlib","version":"1"}],"needs_custom_plan":true,"mood":"happy","complexity":3}`)
	check("plan", func(b []byte) error { _, err := Decode[atesor.BuildPlan](b); return err },
		`{"phases":[{"name":"build","commands":["make"]}]}`,
		`{"phases":[{"name":"build","commands":["make"],"timeout":60}],"notes":"x","reasoning":"r"}`)
	check("fix", func(b []byte) error { _, err := Decode[atesor.FixProposal](b); return err },
		`{"strategies":[{"id":1,"actions":[{"type":"command","command":"make"}]}],"recommended_strategy_id":1}`,
		`{"analysis":"a","strategies":[{"id":"s1","description":"d","confidence":0.9,"actions":[{"type":"command","command":"make","why":"x"}]}],"recommended_strategy_id":"s1","extra":[1]}`)
	check("investigate", func(b []byte) error { _, err := Decode[atesor.FixProposal](b); return err },
		`{"investigate":{"commands":["cat config.log"]}}`,
		`{"investigate":{"commands":["cat config.log"],"why":"x"},"analysis":"a"}`)
	check("curator", func(b []byte) error { _, err := Decode[atesor.CuratorAnswer](b); return err },
		`{"primary":[0]}`, `{"primary":[0,1],"secondary":[2],"drop":[3],"reasoning":"x"}`)
	check("program run", func(b []byte) error { _, err := Decode[atesor.ProgramRun](b); return err },
		`{"program":"minigzip","command":"./minigzip -9"}`, `{"program":"minigzip","command":"./minigzip -9","runs":5}`)
	check("harness", func(b []byte) error { _, err := Decode[atesor.Harness](b); return err },
		`{"language":"c","filename":"bench.c","code":"int main(void){}"}`,
		`{"language":"C++","filename":"bench.cc","code":"int main(){}","functions":["f"],"notes":"x"}`)
}

func TestDecodeStrictStyleNulls(t *testing.T) {
	raw := `{"analysis":null,"strategies":[{"id":1,"description":"d","actions":[{"type":"command","command":"make","path":null,"content":null,"file":null,"diff":null}]}],"recommended_strategy_id":1,"investigate":null}`
	p, err := Decode[atesor.FixProposal]([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if p.Investigate != nil || p.Recommended() == nil {
		t.Errorf("decoded %+v", p)
	}
}

func TestDecodeNormalizes(t *testing.T) {
	deps := make([]string, 20)
	for i := range deps {
		deps[i] = `"d"`
	}
	risks := strings.Repeat(`"r",`, 12) + `"r"`
	raw := `{"purpose":"  p  ","build_system":{"type":" CMake ","confidence":1.5},"dependencies":[` + strings.Join(deps, ",") + `],
		"riscv_risks":[` + risks + `],"expected_artifacts":["a","b","c","d","e","f","g","h","i","j","k"],"needs_custom_plan":false,"complexity":42}`
	a, err := Decode[atesor.AnalysisAnswer]([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Dependencies) != MaxDependencies || len(a.RiscvRisks) != MaxRiscvRisks || len(a.ExpectedArtifacts) != MaxExpectedArtifacts {
		t.Errorf("lists not clamped: %d %d %d", len(a.Dependencies), len(a.RiscvRisks), len(a.ExpectedArtifacts))
	}
	if a.Complexity != 10 || a.BuildSystem.Confidence != 1 || a.BuildSystem.Type != atesor.BuildCMake || a.Purpose != "p" {
		t.Errorf("not normalized: %+v", a)
	}
	b, err := Decode[atesor.AnalysisAnswer]([]byte(`{"purpose":"p","build_system":{"type":"go"},"dependencies":[],"needs_custom_plan":true,"complexity":-3}`))
	if err != nil || b.Complexity != 1 || b.RiscvRisks == nil {
		t.Errorf("complexity -3: %+v %v", b, err)
	}
	c, err := Decode[atesor.AnalysisAnswer]([]byte(`{"purpose":"p","build_system":{"type":"go"},"dependencies":[],"needs_custom_plan":true}`))
	if err != nil || c.Complexity != DefaultComplexity {
		t.Errorf("default complexity: %+v %v", c, err)
	}
	out, _ := json.Marshal(c)
	if !strings.Contains(string(out), `"dependencies":[]`) {
		t.Errorf("empty list marshals as %s", out)
	}
	p, err := Decode[atesor.FixProposal]([]byte(`{"strategies":[{"actions":[{"type":"Command","command":"make"}]},{"actions":[]}],"investigate":{"commands":["ls","ls","ls","ls","ls","ls"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []atesor.StrategyID{"1", "2"}
	got := []atesor.StrategyID{p.Strategies[0].ID, p.Strategies[1].ID}
	if diff := cmp.Diff(want, got); diff != "" || p.RecommendedStrategyID != "1" || len(p.Investigate.Commands) != 4 || p.Strategies[0].Actions[0].Type != atesor.ActionCommand {
		t.Errorf("fix defaults: %+v (%s)", p, diff)
	}
	id, err := Decode[atesor.FixProposal]([]byte(`{"strategies":[{"id":2.0,"actions":[{"type":"command","command":"make"}]}],"recommended_strategy_id":"2"}`))
	if err != nil || id.Recommended() == nil {
		t.Errorf("numeric id 2.0 vs string \"2\": %+v %v", id, err)
	}
}

func TestDecodeRejects(t *testing.T) {
	tests := []struct {
		name string
		f    func([]byte) error
		raw  string
		want string // a substring of the error
	}{
		{"not json", decodeAs[atesor.BuildPlan], `{"phases": [`, "not valid JSON"},
		{"array", decodeAs[atesor.BuildPlan], `[1]`, "not an object"},
		{"needs_custom_plan string", decodeAs[atesor.AnalysisAnswer], `{"purpose":"p","build_system":{"type":"make"},"dependencies":[],"needs_custom_plan":"true"}`, "at needs_custom_plan: must be a JSON boolean"},
		{"build_system string", decodeAs[atesor.AnalysisAnswer], `{"purpose":"p","build_system":"make","dependencies":[],"needs_custom_plan":false}`, "at build_system: must be a JSON object"},
		{"build_system no type", decodeAs[atesor.AnalysisAnswer], `{"purpose":"p","build_system":{},"dependencies":[],"needs_custom_plan":false}`, `at build_system: missing required field "type"`},
		{"dependencies object", decodeAs[atesor.AnalysisAnswer], `{"purpose":"p","build_system":{"type":"make"},"dependencies":{},"needs_custom_plan":false}`, "at dependencies: must be a JSON array"},
		{"empty purpose", decodeAs[atesor.AnalysisAnswer], `{"purpose":"","build_system":{"type":"make"},"dependencies":[],"needs_custom_plan":false}`, "at purpose: must not be empty"},
		{"missing purpose", decodeAs[atesor.AnalysisAnswer], `{"build_system":{"type":"make"},"dependencies":[],"needs_custom_plan":false}`, `missing required field "purpose"`},
		{"no phases", decodeAs[atesor.BuildPlan], `{"phases":[]}`, "at phases: needs at least 1"},
		{"command not string", decodeAs[atesor.BuildPlan], `{"phases":[{"name":"b","commands":[{"cmd":"make"}]}]}`, "at phases[0].commands[0]: must be a JSON string"},
		{"empty command", decodeAs[atesor.BuildPlan], `{"phases":[{"name":"b","commands":[""]}]}`, "at phases[0].commands[0]: must not be empty"},
		{"phase no name", decodeAs[atesor.BuildPlan], `{"phases":[{"commands":["make"]}]}`, `missing required field "name"`},
		{"fix nothing", decodeAs[atesor.FixProposal], `{"analysis":"x"}`, `needs "strategies"`},
		{"unknown action", decodeAs[atesor.FixProposal], `{"strategies":[{"id":1,"actions":[{"type":"shell","command":"x"}]}]}`, "use one of command, create_file, patch"},
		{"bool id", decodeAs[atesor.FixProposal], `{"strategies":[{"id":true,"actions":[]}]}`, "at strategies[0].id: must be a JSON integer or string"},
		{"curator negative", decodeAs[atesor.CuratorAnswer], `{"primary":[-1]}`, "at primary[0]"},
		{"curator no primary", decodeAs[atesor.CuratorAnswer], `{"drop":[1]}`, `"primary"`},
		{"harness language", decodeAs[atesor.Harness], `{"language":"python","filename":"x.py","code":"x"}`, "at language"},
		{"program run empty", decodeAs[atesor.ProgramRun], `{"program":"","command":"x"}`, "at program: must not be empty"},
	}
	for _, tc := range tests {
		err := tc.f([]byte(tc.raw))
		var se *SchemaError
		if !errors.As(err, &se) {
			t.Errorf("%s: error %v is not a *SchemaError", tc.name, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %q does not contain %q", tc.name, err, tc.want)
		}
	}
	if _, err := Decode[atesor.State]([]byte(`{}`)); err == nil {
		t.Error("Decode of a type without schema succeeded")
	}
}

func decodeAs[T any](b []byte) error {
	_, err := Decode[T](b)
	return err
}

func TestSchemas(t *testing.T) {
	for _, s := range []struct {
		name string
		f    func() (json.RawMessage, error)
	}{
		{"analysis", Schema[atesor.AnalysisAnswer]}, {"analysis strict", StrictSchema[atesor.AnalysisAnswer]},
		{"plan", Schema[atesor.BuildPlan]}, {"plan strict", StrictSchema[atesor.BuildPlan]},
		{"fix", Schema[atesor.FixProposal]}, {"fix strict", StrictSchema[atesor.FixProposal]},
		{"curator", Schema[atesor.CuratorAnswer]}, {"run", Schema[atesor.ProgramRun]}, {"harness strict", StrictSchema[atesor.Harness]},
	} {
		raw, err := s.f()
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		text := string(raw)
		if strings.Contains(text, "oneOf") || strings.Contains(text, "$ref") || strings.Contains(text, "\n") {
			t.Errorf("%s schema has oneOf, $ref or newlines: %s", s.name, text)
		}
		strict := strings.HasSuffix(s.name, "strict")
		if strict != strings.Contains(text, `"additionalProperties":false`) {
			t.Errorf("%s: additionalProperties false present = %v", s.name, !strict)
		}
		if _, err := compile(raw); err != nil {
			t.Errorf("%s does not compile: %v", s.name, err)
		}
	}
	var strict map[string]any
	raw, _ := StrictSchema[atesor.AnalysisAnswer]()
	if err := json.Unmarshal(raw, &strict); err != nil {
		t.Fatal(err)
	}
	if n := len(strict["required"].([]any)); n != len(strict["properties"].(map[string]any)) {
		t.Errorf("strict analysis requires %d of %d properties", n, len(strict["properties"].(map[string]any)))
	}
	if !strings.Contains(string(raw), `{"type":"null"}`) {
		t.Error("strict schema has no nullable optional field")
	}
	if SchemaText[string]() != "" || SchemaText[atesor.BuildPlan]() == "" {
		t.Error("SchemaText")
	}
}
