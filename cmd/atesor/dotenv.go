package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// envFuncs are the environment operations .env loading needs (the process environment
// in main, a map in tests).
type envFuncs struct {
	lookup func(string) (string, bool)
	set    func(key, value string) error
}

// loadDotEnv loads the .env files in order: ./.env, then $ATESOR_HOME/.env, then
// ~/.config/atesor-ai/.env (home from $HOME). A variable that is already set is never
// overridden. Missing files are skipped; a malformed file, a symbolic link and a file
// owned by someone else are errors naming the file.
//
// A .env file sets only Atesor's own variables ([dotEnvAllowed]); other names are
// ignored with a warning. The working directory may be a package checkout, so its .env
// is trusted less: it may not set ATESOR_HOME or a base URL ([dotEnvRedirects]), which
// would send the user's keys and prompts elsewhere. ATESOR_HOME therefore comes from
// the process environment only, and the two user files are the trusted ones.
func loadDotEnv(cwd string, env envFuncs) error {
	var trusted []string
	if h, ok := env.lookup("ATESOR_HOME"); ok && h != "" {
		trusted = append(trusted, filepath.Join(h, ".env"))
	}
	if home, ok := env.lookup("HOME"); ok && home != "" {
		trusted = append(trusted, filepath.Join(home, ".config", "atesor-ai", ".env"))
	}
	local := filepath.Join(cwd, ".env")
	localTrusted := false
	for _, p := range trusted {
		if samePath(p, local) {
			localTrusted = true
		}
	}
	if err := loadDotEnvFile(local, env, localTrusted); err != nil {
		return err
	}
	for _, p := range trusted {
		if samePath(p, local) {
			continue
		}
		if err := loadDotEnvFile(p, env, true); err != nil {
			return err
		}
	}
	return nil
}

// samePath reports whether a and b name the same file (after cleaning, or by identity).
func samePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

func loadDotEnvFile(path string, env envFuncs, trusted bool) error {
	exists, err := checkDotEnvFile(path)
	if err != nil || !exists {
		return err
	}
	data, err := readNoFollow(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	vars, err := parseDotEnv(string(data))
	if err != nil {
		return fmt.Errorf("%s: %w (fix or remove the file)", path, err)
	}
	for _, kv := range vars {
		if !dotEnvAllowed(kv[0]) {
			slog.Warn("ignoring a variable that is not Atesor's own in .env", "file", path, "name", kv[0])
			continue
		}
		if !trusted && dotEnvRedirects(kv[0]) {
			slog.Warn("ignoring a redirecting variable in the working directory's .env; set it in ~/.config/atesor-ai/.env or the environment", "file", path, "name", kv[0])
			continue
		}
		if _, set := env.lookup(kv[0]); set {
			continue
		}
		if err := env.set(kv[0], kv[1]); err != nil {
			return fmt.Errorf("%s: set %s: %w", path, kv[0], err)
		}
	}
	return nil
}

// parseDotEnv parses .env text: KEY=value lines, an optional "export " prefix, blank
// lines and # comments; values may be single-quoted (literal), double-quoted (with \n,
// \t, \" and \\ escapes) or bare (a " #" starts a comment; surrounding spaces are
// trimmed). It returns the pairs in file order.
func parseDotEnv(text string) ([][2]string, error) {
	var out [][2]string
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(strings.TrimSuffix(sc.Text(), "\r"))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimSpace(strings.TrimPrefix(line, "export "))
		key, value, ok := strings.Cut(line, "=")
		key = strings.TrimSpace(key)
		if !ok || !validEnvName(key) {
			return nil, fmt.Errorf("line %d: want KEY=value with a name of letters, digits and _", n)
		}
		v, err := dotEnvValue(strings.TrimSpace(value))
		if err != nil {
			return nil, fmt.Errorf("line %d: %s: %w", n, key, err)
		}
		out = append(out, [2]string{key, v})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", n+1, err)
	}
	return out, nil
}

// readNoFollow reads a file without following a symbolic link in its last element, so
// a link swapped in after the check is not read either.
func readNoFollow(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 1<<20))
}

func validEnvName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func dotEnvValue(v string) (string, error) {
	if v == "" {
		return "", nil
	}
	switch v[0] {
	case '\'':
		end := strings.IndexByte(v[1:], '\'')
		if end < 0 {
			return "", errors.New("unterminated single quote")
		}
		if rest := strings.TrimSpace(v[end+2:]); rest != "" && !strings.HasPrefix(rest, "#") {
			return "", errors.New("text after the closing quote")
		}
		return v[1 : end+1], nil
	case '"':
		var b strings.Builder
		for i := 1; i < len(v); i++ {
			c := v[i]
			switch {
			case c == '\\' && i+1 < len(v):
				i++
				switch v[i] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				case 'r':
					b.WriteByte('\r')
				default:
					b.WriteByte(v[i])
				}
			case c == '"':
				if rest := strings.TrimSpace(v[i+1:]); rest != "" && !strings.HasPrefix(rest, "#") {
					return "", errors.New("text after the closing quote")
				}
				return b.String(), nil
			default:
				b.WriteByte(c)
			}
		}
		return "", errors.New("unterminated double quote")
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = v[:i]
	}
	if i := strings.Index(v, "\t#"); i >= 0 {
		v = v[:i]
	}
	return strings.TrimSpace(v), nil
}
