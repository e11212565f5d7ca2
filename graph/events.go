package graph

import "github.com/eclipse-atesor/atesor-go"

// emitScriptedFix reports a scripted fix (package repair) the fix node applied: rule is
// the repair rule's name, summary what the fix does.
func (r *run) emitScriptedFix(rule, summary string) {
	r.log.Info("scripted fix", "node", NodeFix, "rule", rule, "fix", summary)
	r.emit(atesor.Event{Kind: atesor.EventScriptedFix, Node: NodeFix, Rule: rule, Line: summary})
}
