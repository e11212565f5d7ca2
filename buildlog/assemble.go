package buildlog

import (
	"strings"
	"unicode/utf8"
)

// assemble builds the Evidence for diagnostic line i (-1: none) of lines.
func assemble(lines []string, i int, s signal, target string) Evidence {
	ev := Evidence{Kind: s.kind, Strength: s.strength, Target: target}
	var first string
	var ctx []string
	ctxEnd := -1 // the last line the context took from the output
	if i < 0 {
		last := len(lines) - 1
		for last > 0 && strings.TrimSpace(lines[last]) == "" {
			last--
		}
		first = lines[last]
		from := max(0, last-walkBackLines)
		ctx = lines[from:last]
		ctxEnd = last
		ev.Line = last + 1
	} else {
		ev.Line = i + 1
		first = strings.TrimSpace(lines[i])
		before, after, end := contextOf(lines, i, s)
		if s.kind == KindCMake && s.strength == Strong {
			first, after = cmakeMessage(first, after)
		}
		ctx = append(before, after...)
		ctxEnd = end
	}
	first = cutString(strings.TrimSpace(first), maxDiagnosticChars)
	ev.Diagnostic = first

	var b strings.Builder
	b.WriteString(first)
	var kept []string
	for _, l := range ctx {
		if len(l) > maxDiagnosticChars {
			l = cutString(l, maxDiagnosticChars)
		}
		if b.Len()+1+len(l) > maxContextChars {
			break
		}
		b.WriteString("\n" + l)
		kept = append(kept, l)
	}
	ev.Context = strings.Join(kept, "\n")

	// The failing command's last lines, newest kept when they do not all fit.
	from := max(ctxEnd+1, len(lines)-tailLines)
	if i >= 0 && from <= i {
		from = i + 1
	}
	var tail []string
	budget := MaxChars - b.Len() - len("\n"+tailHeader)
	for j := len(lines) - 1; j >= from; j-- {
		l := cutString(lines[j], 300)
		if budget-(len(l)+1) < 0 {
			break
		}
		budget -= len(l) + 1
		tail = append(tail, l)
	}
	for len(tail) > 0 && strings.TrimSpace(tail[len(tail)-1]) == "" {
		tail = tail[:len(tail)-1]
	}
	if len(tail) > 0 {
		b.WriteString("\n" + tailHeader)
		for j := len(tail) - 1; j >= 0; j-- {
			b.WriteString("\n" + tail[j])
		}
	}
	ev.Text = cutString(b.String(), MaxChars)
	return ev
}

// contextOf returns the lines before and after diagnostic i that explain it, and the
// index of the last line taken.
func contextOf(lines []string, i int, s signal) (before, after []string, end int) {
	end = i
	switch {
	case s.strength == Summary || s.strength == Weak || s.kind == KindMissingProgram || s.kind == KindMake:
		// A summary names no diagnostic, a missing program needs the command that ran it:
		// walk back over the lines before it.
		from := max(0, i-walkBackLines)
		if s.kind == KindMissingProgram || s.kind == KindMake {
			from = max(0, i-3)
		}
		for j := from; j < i; j++ {
			if strings.TrimSpace(lines[j]) != "" {
				before = append(before, lines[j])
			}
		}
		return before, nil, end
	case s.kind == KindCompiler || s.kind == KindGo || s.kind == KindLinker:
		// The include chain and "In function" lines stand right above the error.
		j := i - 1
		for j >= 0 && j >= i-30 && (includeChain.MatchString(lines[j]) || inFunction.MatchString(lines[j]) || goPackageHeader(lines[j])) {
			j--
		}
		before = append(before, lines[j+1:i]...)
		// Then the source excerpt, carets, notes and the next errors of the same kind.
		for j = i + 1; j < len(lines) && len(after) < maxContextLines; j++ {
			l := lines[j]
			if strings.TrimSpace(l) == "" || !continuation(l, s.kind) {
				break
			}
			after = append(after, l)
			end = j
		}
		return before, after, end
	case s.kind == KindCMake:
		for j := i + 1; j < len(lines) && len(after) < maxContextLines; j++ {
			l := lines[j]
			if l != "" && l[0] != ' ' && l[0] != '\t' && !strings.HasPrefix(l, "Call Stack") {
				break
			}
			after = append(after, l)
			end = j
		}
		return nil, trimBlank(after), end
	default:
		// configure, meson, cargo, go and the rest: the block under the error up to a
		// blank line followed by an unrelated line, and the check right above it.
		if i > 0 && (strings.HasPrefix(lines[i-1], "checking ") || strings.Contains(lines[i-1], "found: NO") || strings.HasPrefix(lines[i-1], "#")) {
			before = append(before, lines[i-1])
		}
		blank := 0
		for j := i + 1; j < len(lines) && len(after) < maxContextLines; j++ {
			l := lines[j]
			if strings.TrimSpace(l) == "" {
				blank++
				if blank > 1 {
					break
				}
				after = append(after, l)
				continue
			}
			if blank > 0 && s.kind != KindConfigure && !strings.HasPrefix(l, " ") {
				break
			}
			if c := classify(l); c.strength == Summary {
				break
			}
			blank = 0
			after = append(after, l)
			end = j
		}
		return before, trimBlank(after), end
	}
}

// continuation reports whether line l continues a compiler, Go or linker diagnostic.
func continuation(l string, k Kind) bool {
	if l[0] == ' ' || l[0] == '\t' || strings.HasPrefix(l, "|") {
		return !includeChain.MatchString(l)
	}
	switch k {
	case KindCompiler:
		return strings.Contains(l, ": note: ") || strings.Contains(l, ": error: ") || fileDiag.MatchString(l)
	case KindGo:
		return goDiag.MatchString(l) || strings.HasPrefix(l, "note: ")
	case KindLinker:
		return linkerDiag.MatchString(l) || linkerSummary.MatchString(l) || inFunction.MatchString(l)
	}
	return false
}

func goPackageHeader(l string) bool {
	return strings.HasPrefix(l, "# ") && !strings.Contains(l[2:], " ")
}

// cmakeMessage joins a CMake error's header with the message indented under it into
// one line: "CMake Error: <message>", with the header's location kept in the context.
func cmakeMessage(header string, after []string) (string, []string) {
	m := cmakeError.FindStringSubmatch(header)
	if m == nil {
		return header, after
	}
	var msg []string
	if strings.TrimSpace(m[2]) != "" {
		msg = append(msg, strings.TrimSpace(m[2]))
	}
	rest := after
	for k, l := range after {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "Call Stack") {
			rest = after[k:]
			break
		}
		if t != "" {
			msg = append(msg, t)
		}
		rest = after[k+1:]
	}
	if len(msg) == 0 {
		return header, after
	}
	full := strings.Join(strings.Fields(strings.Join(msg, " ")), " ")
	joined := cutString(full, cmakeMessageChars)
	ctx := make([]string, 0, len(after)+1)
	if m[1] != "" {
		ctx = append(ctx, header)
	}
	if len(joined) < len(full) {
		ctx = append(ctx, after[:len(after)-len(rest)]...)
	}
	return "CMake Error: " + joined, append(ctx, rest...)
}

func trimBlank(ls []string) []string {
	for len(ls) > 0 && strings.TrimSpace(ls[len(ls)-1]) == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// cutString cuts s to at most n bytes without splitting a UTF-8 sequence.
func cutString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
