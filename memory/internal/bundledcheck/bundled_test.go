package bundledcheck_test

import (
	"io/fs"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/memory"
	"github.com/eclipse-atesor/atesor-go/validate"
)

func TestBundledExamplesPassValidators(t *testing.T) {
	checked := 0
	for _, agent := range atesor.Agents() {
		name, err := memory.FileName(agent)
		if err != nil {
			t.Fatal(err)
		}
		data, err := fs.ReadFile(memory.Bundled(), name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := memory.ParseExampleFile(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, e := range f.Examples {
			for _, phases := range [][]atesor.Phase{e.Plan, e.Phases} {
				if len(phases) == 0 {
					continue
				}
				plan := atesor.BuildPlan{Phases: phases}
				if err := validate.BuildPlan(&plan); err != nil {
					t.Errorf("%s (%s): plan rejected by validate.BuildPlan: %v", e.ID, e.Sandbox, err)
				}
				if _, removed := validate.StripTestCommands(plan); len(removed) > 0 {
					t.Errorf("%s: plan holds test commands %v; leave tests out of bundled plans", e.ID, removed)
				}
				checked++
			}
			if e.Fix != nil {
				for _, a := range e.Fix.Actions {
					if a.Type != atesor.ActionCommand {
						continue
					}
					if err := validate.FixCommand(a.Command); err != nil {
						t.Errorf("%s (%s): fix command %q rejected by validate.FixCommand: %v", e.ID, e.Sandbox, a.Command, err)
					}
					checked++
				}
			}
		}
	}
	if checked < 40 {
		t.Fatalf("only %d plans and commands checked; the bundled files lost examples", checked)
	}
}
