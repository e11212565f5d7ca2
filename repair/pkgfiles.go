package repair

import (
	"context"
	"fmt"
	"strings"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
)

// PackageFilesFunc installs a package in the sandbox and lists the paths it installs,
// as the package manager records them (files and directories, absolute), for a rule
// that points the build at a directory of the package.
type PackageFilesFunc func(ctx context.Context, pkg string) ([]string, error)

// packageFilesMax bounds the paths read of one package: an SDK of sources is a few
// thousand (pico-sdk-source 2.1.1 lists 3,033 paths).
const packageFilesMax = 50000

// SandboxPackageFiles is the [PackageFilesFunc] of a sandbox: the platform's update
// and install commands for the package (with network), then dpkg's list of its files
// (without network), with env as the commands' environment. Without dpkg (Alpine) the
// list fails, and the rule that asked makes no fix.
func SandboxPackageFiles(sb atesor.Sandbox, p atesor.Platform, env []string) PackageFilesFunc {
	return func(ctx context.Context, pkg string) ([]string, error) {
		if err := installIn(ctx, sb, p, env, []string{pkg}); err != nil {
			return nil, err
		}
		// installIn checked the name, so it is one word with no shell syntax.
		line := fmt.Sprintf("dpkg-query -L %s | head -n %d", pkg, packageFilesMax)
		res, err := sb.Exec(ctx, atesor.Command{Line: line, Dir: "/", Env: env, Timeout: 2 * time.Minute})
		if err != nil {
			return nil, fmt.Errorf("listing %s: %w", pkg, err)
		}
		if !res.OK() {
			return nil, fmt.Errorf("%s exited %d: %s", line, res.ExitCode, strings.TrimSpace(excerpt.Tail(res.Stderr, 300)))
		}
		return parsePackageFiles(res.Stdout), nil
	}
}

// parsePackageFiles reads dpkg-query -L's output: one absolute path a line; its notes
// ("diverted by", "package diverts others to") and anything with a . or .. element are
// dropped.
func parsePackageFiles(out string) []string {
	var files []string
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimRight(line, "\r")
		if !strings.HasPrefix(line, "/") || strings.Contains(line, "/../") || strings.Contains(line, "/./") ||
			strings.HasSuffix(line, "/..") || strings.HasSuffix(line, "/.") || len(files) == packageFilesMax {
			continue
		}
		files = append(files, line)
	}
	return files
}
