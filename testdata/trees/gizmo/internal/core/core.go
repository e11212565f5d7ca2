package core

// Run runs the tool.
func Run() {}
