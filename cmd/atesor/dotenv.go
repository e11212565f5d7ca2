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

	"github.com/eclipse-atesor/atesor-go/knowledge/debsrc"
)

// envFuncs are the environment operations .env loading needs (the process environment
// in main, a map in tests).
type envFuncs struct {
	lookup func(string) (string, bool)
	set    func(key, value string) error
	// environ lists the variables as KEY=value (os.Environ).
	environ func() []string
}

// originEnvironment is the origin of a variable set before any .env file was read.
const originEnvironment = "the environment"

// dotEnvReport says where each of Atesor's settings came from and what the working
// directory's .env was not allowed to set; doctor prints it.
type dotEnvReport struct {
	// Origins maps a variable to the file that set it, or [originEnvironment].
	Origins map[string]string
	// LocalFile is the working directory's .env when one was there; LocalIgnored are
	// the variables of it that were not applied, and LocalWhy says why.
	LocalFile    string
	LocalIgnored []string
	LocalWhy     string
}

// loadDotEnv loads the .env files, the user's own first: ~/.config/atesor-ai/.env (home
// from $HOME), then $ATESOR_HOME/.env (ATESOR_HOME from the environment or the first
// file), then the working directory's ./.env. A variable already set is never
// overridden, so the environment wins over every file and the user's files over the
// working directory's. Missing files are skipped; a malformed file, a symbolic link and
// a file owned by someone else are errors naming the file.
//
// A user file sets only Atesor's own variables ([dotEnvAllowed]). The working
// directory is often a package checkout, whose .env is the package author's word, not
// the user's: it may set only the harmless settings of [dotEnvLocalAllowed] (model
// names, timeouts, output caps, the platform), never keys, the provider, base URLs,
// mirrors, limits, bounds or paths, and nothing at all when the working directory lies
// inside one of sources (the local sources the command ports: a directory, or the
// directory holding a tarball). What it may not set is ignored with one warning that
// names the variables.
func loadDotEnv(cwd string, sources []string, env envFuncs) (*dotEnvReport, error) {
	rep := &dotEnvReport{Origins: map[string]string{}}
	for _, name := range dotEnvKnown(env) {
		rep.Origins[name] = originEnvironment
	}
	var read []string
	user := func(p string) error {
		for _, r := range read {
			if samePath(r, p) {
				return nil
			}
		}
		read = append(read, p)
		vars, err := readDotEnvFile(p)
		if err != nil || vars == nil {
			return err
		}
		var foreign []string
		for _, kv := range vars {
			if !dotEnvAllowed(kv[0]) {
				foreign = append(foreign, kv[0])
				continue
			}
			if err := setOnce(p, kv, env, rep); err != nil {
				return err
			}
		}
		if len(foreign) > 0 {
			slog.Warn("ignoring variables in .env that are not Atesor's own", "file", p, "names", strings.Join(foreign, " "))
		}
		return nil
	}
	if home, ok := env.lookup("HOME"); ok && home != "" {
		if err := user(filepath.Join(home, ".config", "atesor-ai", ".env")); err != nil {
			return rep, err
		}
	}
	if h, ok := env.lookup("ATESOR_HOME"); ok && h != "" {
		if err := user(filepath.Join(h, ".env")); err != nil {
			return rep, err
		}
	}
	local := filepath.Join(cwd, ".env")
	for _, r := range read {
		if samePath(r, local) {
			return rep, nil // run from the user's own configuration directory
		}
	}
	vars, err := readDotEnvFile(local)
	if err != nil || vars == nil {
		return rep, err
	}
	rep.LocalFile = local
	inside := ""
	for _, s := range sources {
		if d := sourceDir(s); d != "" && within(cwd, d) {
			inside = s
			break
		}
	}
	for _, kv := range vars {
		if inside != "" || !dotEnvLocalAllowed(kv[0]) {
			rep.LocalIgnored = append(rep.LocalIgnored, kv[0])
			continue
		}
		if err := setOnce(local, kv, env, rep); err != nil {
			return rep, err
		}
	}
	if len(rep.LocalIgnored) > 0 {
		if inside != "" {
			rep.LocalWhy = "the working directory lies inside the source being ported (" + inside + "), so its .env is the package's, not yours"
		} else {
			rep.LocalWhy = "the working directory's .env may set only model names, timeouts, output caps and the platform"
		}
		slog.Warn("ignoring variables of the working directory's .env: "+rep.LocalWhy+"; set them in ~/.config/atesor-ai/.env or the environment",
			"file", local, "names", strings.Join(rep.LocalIgnored, " "))
	}
	return rep, nil
}

// setOnce sets kv from file unless the variable is already set, and records its origin.
func setOnce(file string, kv [2]string, env envFuncs, rep *dotEnvReport) error {
	if _, set := env.lookup(kv[0]); set {
		return nil
	}
	if err := env.set(kv[0], kv[1]); err != nil {
		return fmt.Errorf("%s: set %s: %w", file, kv[0], err)
	}
	rep.Origins[kv[0]] = file
	return nil
}

// sourceDir is the directory a local source occupies: the directory itself, or the one
// holding a tarball; "" for a remote source or a path that is not there.
func sourceDir(source string) string {
	if isRemote(source) || debsrc.IsSpec(source) {
		return ""
	}
	abs, err := filepath.Abs(source)
	if err != nil {
		return ""
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return ""
	}
	if !fi.IsDir() {
		return filepath.Dir(abs)
	}
	return abs
}

// within reports whether path is dir or lies below it, after resolving symbolic links
// (a link into the source is inside it).
func within(path, dir string) bool {
	real := func(p string) string {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	rel, err := filepath.Rel(real(dir), real(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
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

// readDotEnvFile checks and parses one .env file; nil pairs and no error when there is
// no file.
func readDotEnvFile(path string) ([][2]string, error) {
	exists, err := checkDotEnvFile(path)
	if err != nil || !exists {
		return nil, err
	}
	data, err := readNoFollow(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	vars, err := parseDotEnv(string(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w (fix or remove the file)", path, err)
	}
	if vars == nil {
		vars = [][2]string{}
	}
	return vars, nil
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
