package atesor

// Role is an LLM role of the agent pipeline. Each role has its own model pool.
type Role string

// The model roles. Only planner, scout, fixer and summarizer are used
// by pipeline nodes; builder is used by performance mode for harness code, and supervisor
// has model entries but routes by rules.
const (
	RolePlanner    Role = "planner"
	RoleScout      Role = "scout"
	RoleFixer      Role = "fixer"
	RoleSummarizer Role = "summarizer"
	RoleSupervisor Role = "supervisor"
	RoleBuilder    Role = "builder"
)

// Roles lists every role in the order of the model table.
func Roles() []Role {
	return []Role{RolePlanner, RoleScout, RoleFixer, RoleSummarizer, RoleSupervisor, RoleBuilder}
}

// Agent names a few-shot memory file: each agent has its own examples.
type Agent string

// The agents that keep few-shot examples.
const (
	AgentScout   Agent = "scout"
	AgentFixer   Agent = "fixer"
	AgentBuilder Agent = "builder"
)

// Agents lists the agents with example files.
func Agents() []Agent { return []Agent{AgentScout, AgentFixer, AgentBuilder} }
