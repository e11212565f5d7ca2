package knowledge

import (
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// goBuildCommand is the default plan's Go build, run in the module directory:
//
//   - a module with commands builds every one of them into bin/, where go build names
//     each binary as go install would (cmd/tool -> bin/tool, the root package after the
//     module path);
//   - a library module (no command) builds all its packages and compiles each package's
//     test binary into bin/ (go test -c: bin/pkg.test), its riscv64 evidence; finish
//     still runs its tests;
//   - a detection that knows a main package but no command list (made before commands
//     were recorded) builds that main package.
func goBuildCommand(det *atesor.Detection) string {
	prefix := goToolchainEnv + " go build -buildvcs=false"
	cmds := det.GoCommands
	if len(cmds) == 0 && det.HasMain && det.MainPath != "" && len(det.GoArtifacts) == 0 {
		cmds = []string{det.MainPath}
	}
	if len(cmds) > 0 {
		pkgs := make([]string, 0, len(cmds))
		for _, c := range cmds {
			pkgs = append(pkgs, goPkgPath(c))
		}
		return prefix + " -o " + goBinDir + "/ " + strings.Join(pkgs, " ")
	}
	return prefix + " ./... && " + goToolchainEnv + " go test -buildvcs=false -c -o " + goBinDir + "/ ./..."
}
