package proc

import (
	"log/slog"
	"strings"
)

// DefaultPath is PATH inside a sandbox.
const DefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// SandboxHome is HOME inside a sandbox.
const SandboxHome = "/root"

// Env returns the environment of a command inside a sandbox: the fixed allowlist
// (PATH, HOME, LANG, DEBIAN_FRONTEND, GIT_TERMINAL_PROMPT, GOFLAGS), CC and CXX when set,
// then the command's own KEY=value variables. Nothing is taken from the host environment.
// Variables that look like secrets (API keys, tokens, passwords) are dropped with a
// warning, so an API key never reaches a sandbox even when a caller passes it.
func Env(path, home, cc, cxx string, extra []string) []string {
	env := []string{
		"PATH=" + path,
		"HOME=" + home,
		"LANG=C.UTF-8",
		"DEBIAN_FRONTEND=noninteractive",
		"GIT_TERMINAL_PROMPT=0",
		"GOFLAGS=-buildvcs=false",
	}
	if cc != "" {
		env = append(env, "CC="+cc)
	}
	if cxx != "" {
		env = append(env, "CXX="+cxx)
	}
	for _, kv := range extra {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			slog.Warn("sandbox: ignoring malformed environment entry", "entry", name)
			continue
		}
		if isSecretName(name) {
			slog.Warn("sandbox: refusing to pass a secret-looking variable into the sandbox", "name", name)
			continue
		}
		env = setEnv(env, name, kv)
	}
	return env
}

// setEnv replaces the entry for name or appends kv.
func setEnv(env []string, name, kv string) []string {
	for i, e := range env {
		if n, _, _ := strings.Cut(e, "="); n == name {
			env[i] = kv
			return env
		}
	}
	return append(env, kv)
}

// isSecretName reports whether an environment variable name looks like it holds a
// credential (…_API_KEY, …_TOKEN, …_SECRET, …PASSWORD).
func isSecretName(name string) bool {
	u := strings.ToUpper(name)
	for _, s := range []string{"API_KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL"} {
		if strings.Contains(u, s) {
			return true
		}
	}
	return false
}
