package atesor

// Phase is a named group of shell command lines of a build plan.
type Phase struct {
	Name     string   `json:"name" jsonschema:"minLength=1"`
	Commands []string `json:"commands" jsonschema:"minItems=1"`
}

// BuildPlan is the scout's answer and the plan the build node runs.
type BuildPlan struct {
	Phases    []Phase `json:"phases" jsonschema:"minItems=1"`
	Reasoning string  `json:"reasoning,omitempty"`
}

// Commands returns every command line of the plan in order.
func (p BuildPlan) Commands() []string {
	var out []string
	for _, ph := range p.Phases {
		out = append(out, ph.Commands...)
	}
	return out
}

// TaskPlan is the fixed record of the ordered steps the pipeline takes. It is not asked
// of a model: the steps never vary, so a planner call would only cost time and money.
type TaskPlan struct {
	Steps []string `json:"steps"`
}
