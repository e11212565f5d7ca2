// Package hostenv is the one policy for the environment of the host tools Atesor starts
// (mmdebstrap, apt-get, go, the C compiler, docker, gpgv, nsenter): never a provider key
// or another credential, which those tools never need and their maintainer scripts,
// hooks and logs must never see. A tool that needs the host's settings (proxies, locale,
// TMPDIR) gets the environment without them ([Environ]); a tool that needs a known few
// variables gets just those ([Only]). Tools started with an empty environment on purpose
// (the jail's bwrap and slirp4netns) need neither.
package hostenv

import (
	"os"
	"strings"
)

// secretPrefixes are the variable families of the model providers and of Atesor.
var secretPrefixes = []string{"OPENAI_", "ANTHROPIC_", "GOOGLE_", "GEMINI_", "OPENROUTER_", "ATESOR_", "LLM_", "AZURE_OPENAI_", "AWS_", "HF_", "HUGGINGFACE_"}

// secretMarks are parts of names that hold credentials.
var secretMarks = []string{"API_KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE_KEY", "ACCESS_KEY", "AUTH"}

// Secret reports whether an environment variable name is a provider variable or looks
// like a credential.
func Secret(name string) bool {
	up := strings.ToUpper(name)
	for _, p := range secretPrefixes {
		if strings.HasPrefix(up, p) {
			return true
		}
	}
	for _, m := range secretMarks {
		if strings.Contains(up, m) {
			return true
		}
	}
	return false
}

// Environ returns os.Environ() without secret variables, followed by extra
// ("KEY=value" entries).
func Environ(extra ...string) []string {
	return Filter(os.Environ(), extra...)
}

// Only returns the variables names of os.Environ() that are set and not secret, followed
// by extra ("KEY=value" entries): for a host tool that needs nothing else of the host
// (the docker CLI: PATH, HOME and its DOCKER_ settings; gpgv: PATH).
func Only(names []string, extra ...string) []string {
	out := make([]string, 0, len(names)+len(extra))
	for _, name := range names {
		if v, ok := os.LookupEnv(name); ok && !Secret(name) {
			out = append(out, name+"="+v)
		}
	}
	return append(out, extra...)
}

// Filter returns env without secret variables, followed by extra.
func Filter(env []string, extra ...string) []string {
	out := make([]string, 0, len(env)+len(extra))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if Secret(name) {
			continue
		}
		out = append(out, kv)
	}
	return append(out, extra...)
}
