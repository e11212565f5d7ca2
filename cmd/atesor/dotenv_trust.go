package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/provider"
)

// dotEnvProviderKeys are the provider variables a .env file may set: every variable the
// provider layer reads (provider.EnvVariables: the provider choice, keys, base URLs,
// models, prices), and GEMINI_API_KEY.
var dotEnvProviderKeys = func() map[string]bool {
	m := map[string]bool{"GEMINI_API_KEY": true}
	for _, v := range provider.EnvVariables() {
		m[v] = true
	}
	return m
}()

// dotEnvAllowed reports whether a .env file may set name: Atesor's own variables (the
// provider selection, keys, base URLs and models of provider.EnvVariables and the
// ATESOR_* family). Anything else (HTTPS_PROXY, SSL_CERT_FILE, LD_PRELOAD, ...) would
// steer other programs and libraries of the host, so it is ignored with a warning.
func dotEnvAllowed(name string) bool {
	return dotEnvProviderKeys[name] || strings.HasPrefix(name, "ATESOR_")
}

// dotEnvLocalNames are the variables the working directory's .env may set: settings
// that change how well a port goes but not whom it trusts. Model names (the provider
// and its key stay the user's, so a model name only picks among the user's own
// account's models), the model timeout, the output cap and the platform. Everything
// else (keys, the provider, base URLs, mirrors, sandbox limits, extraction and download
// bounds, the state home, prices that the cost limit is computed from) would let a
// package's author redirect the user's code and keys or lift a protection, so it is
// left out: a new setting is refused there until it is added here on purpose.
var dotEnvLocalNames = func() map[string]bool {
	m := map[string]bool{
		provider.EnvModel:               true,
		provider.EnvOpenRouterFallbacks: true,
		provider.EnvTimeout:             true,
		provider.EnvMaxOutputTokens:     true,
		envPlatform:                     true,
	}
	for _, r := range atesor.Roles() {
		m[provider.ModelVariable(r)] = true
	}
	return m
}()

// envPlatform chooses the target platform (alpine, debian, ubuntu).
const envPlatform = "ATESOR_PLATFORM"

// dotEnvLocalAllowed reports whether the working directory's .env may set name.
func dotEnvLocalAllowed(name string) bool { return dotEnvLocalNames[name] }

// dotEnvKnown lists the variables of Atesor's own ([dotEnvAllowed]) that are set in the
// process environment, sorted.
func dotEnvKnown(env envFuncs) []string {
	if env.environ == nil {
		return nil
	}
	var out []string
	for _, kv := range env.environ() {
		if k, _, ok := strings.Cut(kv, "="); ok && dotEnvAllowed(k) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// checkDotEnvFile refuses a .env file that is a symbolic link, not a regular file, or
// not owned by the user running Atesor (or root): such a file may have been planted by
// someone else to redirect the user's keys. exists is false when there is no file.
func checkDotEnvFile(path string) (exists bool, err error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("inspect %s: %w", path, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return true, fmt.Errorf("%s is a symbolic link; Atesor reads only a regular .env file owned by you (replace the link with the file itself)", path)
	}
	if !fi.Mode().IsRegular() {
		return true, fmt.Errorf("%s is not a regular file; remove it or make it a plain KEY=value file", path)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		if uid := uint32(os.Geteuid()); st.Uid != uid && st.Uid != 0 {
			return true, fmt.Errorf("%s is owned by uid %d, not by you (uid %d); Atesor reads only your own .env files (check where it came from, then chown it or remove it)", path, st.Uid, uid)
		}
	}
	return true, nil
}
