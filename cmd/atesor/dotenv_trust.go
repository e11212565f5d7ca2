package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"

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

// dotEnvRedirects reports whether name changes where model traffic goes or where Atesor
// reads its configuration and state from: base URLs, endpoints and ATESOR_HOME. Only the
// user's own .env files (in ATESOR_HOME and ~/.config/atesor-ai) may set them; the
// working directory may be a package checkout, and its .env is not the user's word.
func dotEnvRedirects(name string) bool {
	return name == "ATESOR_HOME" || strings.HasSuffix(name, "_BASE_URL") || strings.HasSuffix(name, "_ENDPOINT") ||
		strings.HasSuffix(name, "_URL") || strings.Contains(name, "PROXY")
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
