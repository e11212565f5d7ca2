package knowledge

import (
	"path"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// CorrectInstallCommand rewrites the package names of every install command in a shell
// command line (apt-get/apt install, apk add) with the profile's name corrections, so
// `apt-get install -y zlib-dev` becomes `apt-get install -y zlib1g-dev` on Debian. Version
// and architecture suffixes (`pkg=1.2`, `pkg:riscv64`) are kept. Everything else in the
// line, spacing and quoted words included, is left as it is. The sandbox applies it to
// package-manager commands before running them.
func CorrectInstallCommand(p atesor.Platform, line string) string {
	if len(p.Corrections) == 0 || line == "" {
		return line
	}
	words := lexShell(line)
	var b strings.Builder
	last := 0
	for _, cmd := range splitSimpleCommands(words) {
		for _, w := range installArgs(cmd) {
			if w.quoted {
				continue
			}
			name, rest := splitPackageSpec(w.text)
			to, ok := p.Corrections[name]
			if !ok {
				continue
			}
			b.WriteString(line[last:w.start])
			b.WriteString(to)
			b.WriteString(rest)
			last = w.end
		}
	}
	if last == 0 {
		return line
	}
	b.WriteString(line[last:])
	return b.String()
}

// shellWord is a word or an operator of a command line, with its byte span.
type shellWord struct {
	text       string
	start, end int
	quoted     bool // the word has quotes or escapes: never rewritten
	op         bool // an operator: && || ; | & ( ) or a newline
}

// lexShell splits a command line into words and operators. It is a small lexer, not a
// full shell parser: enough to find install commands and their package words. Unclosed
// quotes run to the end of the line.
func lexShell(s string) []shellWord {
	var out []shellWord
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '\n' || c == ';' || c == '(' || c == ')':
			out = append(out, shellWord{text: s[i : i+1], start: i, end: i + 1, op: true})
			i++
		case c == '&' || c == '|':
			j := i + 1
			if j < len(s) && s[j] == c {
				j++
			}
			out = append(out, shellWord{text: s[i:j], start: i, end: j, op: true})
			i = j
		case c == '#' && (i == 0 || isSpace(s[i-1])):
			for i < len(s) && s[i] != '\n' {
				i++
			}
		default:
			start, quoted := i, false
			for i < len(s) && !isSpace(s[i]) && !strings.ContainsRune("\n;()&|", rune(s[i])) {
				switch s[i] {
				case '\'', '"':
					quoted = true
					q := s[i]
					i++
					for i < len(s) && s[i] != q {
						if q == '"' && s[i] == '\\' {
							i++
						}
						i++
					}
					i++
				case '\\', '$', '`':
					quoted = true
					i += 2
				default:
					i++
				}
			}
			if i > len(s) {
				i = len(s)
			}
			out = append(out, shellWord{text: s[start:i], start: start, end: i, quoted: quoted})
		}
	}
	return out
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

// splitSimpleCommands cuts the word list at operators.
func splitSimpleCommands(words []shellWord) [][]shellWord {
	var out [][]shellWord
	var cur []shellWord
	for _, w := range words {
		if w.op {
			if len(cur) > 0 {
				out = append(out, cur)
			}
			cur = nil
			continue
		}
		cur = append(cur, w)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// installArgs returns the package words of an install command, or nil when cmd is not
// one. It skips environment assignments, sudo/env/doas-like wrappers and option words.
func installArgs(cmd []shellWord) []shellWord {
	i := 0
	for i < len(cmd) {
		t := cmd[i].text
		if strings.Contains(t, "=") && !strings.HasPrefix(t, "-") && !cmd[i].quoted {
			i++
			continue
		}
		if t == "sudo" || t == "env" || t == "nice" || t == "command" {
			i++
			continue
		}
		break
	}
	if i >= len(cmd) || cmd[i].quoted {
		return nil
	}
	var sub string
	switch path.Base(cmd[i].text) {
	case "apt-get", "apt", "aptitude":
		sub = "install"
	case "apk":
		sub = "add"
	default:
		return nil
	}
	j := i + 1
	for j < len(cmd) && strings.HasPrefix(cmd[j].text, "-") {
		// Options that take a separate value.
		if t := cmd[j].text; t == "-o" || t == "-t" || t == "--target-release" ||
			t == "--repository" || t == "-X" || t == "--root" || t == "-p" {
			j++
		}
		j++
	}
	if j >= len(cmd) || cmd[j].text != sub {
		return nil
	}
	var pkgs []shellWord
	for k := j + 1; k < len(cmd); k++ {
		t := cmd[k].text
		if strings.HasPrefix(t, "-") {
			if t == "-o" || t == "-t" || t == "--target-release" || t == "--repository" || t == "-X" {
				k++
			}
			continue
		}
		pkgs = append(pkgs, cmd[k])
	}
	return pkgs
}

// splitPackageSpec separates a package name from a version, architecture or release
// suffix: zlib1g-dev=1:1.3, zlib1g-dev:riscv64, zlib-dev>1.2, pkg/trixie.
func splitPackageSpec(w string) (name, rest string) {
	if i := strings.IndexAny(w, "=<>:/~"); i > 0 {
		return w[:i], w[i:]
	}
	return w, ""
}
