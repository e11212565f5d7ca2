package validate

// goSubcommands are the subcommands of the go tool (go help). A model that mixes up a go
// command and a package install writes them as package names ("apt-get install -y build").
var goSubcommands = []string{
	"bug", "build", "clean", "doc", "env", "fix", "fmt", "generate", "get", "install", "list",
	"mod", "work", "run", "telemetry", "test", "tool", "version", "vet", "help",
}

// GoSubcommands returns the subcommands of the go tool, in a new slice.
func GoSubcommands() []string {
	return append([]string(nil), goSubcommands...)
}

// IsGoSubcommand reports whether name is a subcommand of the go tool.
func IsGoSubcommand(name string) bool {
	for _, s := range goSubcommands {
		if s == name {
			return true
		}
	}
	return false
}

// goSubcommandPackage returns the first package name of an install command (apt-get/apt
// install, apk add) that is a go subcommand, or "".
func goSubcommandPackage(c call) string {
	if len(c.args) == 0 {
		return ""
	}
	var installs []arg
	switch base(c.prog()) {
	case "apt-get", "apt", "aptitude":
		pa := parseArgs(c.args[1:], aptSpec, false)
		if len(pa.operands) > 0 && pa.operands[0].val() == "install" {
			installs = pa.operands[1:]
		}
	case "apk":
		pa := parseArgs(c.args[1:], apkSpec, false)
		if len(pa.operands) > 0 && pa.operands[0].val() == "add" {
			installs = pa.operands[1:]
		}
	}
	for _, p := range installs {
		if IsGoSubcommand(p.val()) {
			return p.val()
		}
	}
	return ""
}
