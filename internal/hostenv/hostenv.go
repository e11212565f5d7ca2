// Package hostenv builds the environment of host tools Atesor starts (mmdebstrap,
// apt-get on the host): the process environment without provider keys and other
// credentials, which those tools never need and their maintainer scripts, hooks and
// logs must never see.
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
