package repair

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseCMake(t *testing.T) {
	type cmd struct {
		Name string
		Args []string
		Line int
	}
	tests := []struct {
		name, src string
		want      []cmd
	}{
		{"comments and quoting",
			"# a comment (not a command\nproject(p CXX) # trailing\n#[[ a bracket\ncomment ]] set(A \"x y\" [=[z]=])\n",
			[]cmd{{"project", []string{"p", "CXX"}, 2}, {"set", []string{"A", "x y", "z"}, 4}}},
		{"case-insensitive names, nested parentheses, escapes",
			"IF((A OR B) AND NOT C)\nMessage(\"a\\\"b\\\\c\")\nEndIf()\n",
			[]cmd{{"if", []string{"(", "A", "OR", "B", ")", "AND", "NOT", "C"}, 1}, {"message", []string{`a"b\c`}, 2}, {"endif", nil, 3}}},
		{"arguments over lines, line numbers after them",
			"add_subdirectory(\n  \"${CMAKE_CURRENT_SOURCE_DIR}/third_party/googletest\"\n  EXCLUDE_FROM_ALL)\nfoo()\n",
			[]cmd{{"add_subdirectory", []string{"${CMAKE_CURRENT_SOURCE_DIR}/third_party/googletest", "EXCLUDE_FROM_ALL"}, 1}, {"foo", nil, 4}}},
		{"a quoted line continuation and a multi-line bracket argument",
			"set(A \"one \\\ntwo\")\nset(B [[\nline1\nline2]])\nx()\n",
			[]cmd{{"set", []string{"A", "one two"}, 1}, {"set", []string{"B", "line1\nline2"}, 3}, {"x", nil, 6}}},
		{"stray bytes end the file; the commands before it stay",
			"a(1)\n\x00\xff b(2)\n", []cmd{{"a", []string{"1"}, 1}}},
		{"an unterminated quote ends the file", "a(1)\nb(\"x\n", []cmd{{"a", []string{"1"}, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmds, err := parseCMake(tt.src)
			if err != nil {
				t.Fatal(err)
			}
			var got []cmd
			for _, c := range cmds {
				var args []string
				for _, a := range c.Args {
					args = append(args, a.Text)
				}
				got = append(got, cmd{c.Name, args, c.Line})
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestCondWays(t *testing.T) {
	opts := map[string]bool{"T": true, "B": true, "SYS": true}
	ok := func(l leaf) bool { return opts[l.name] }
	tests := []struct {
		cond string
		want bool
		ways [][]leaf
	}{
		{"T", false, [][]leaf{{{op: "var", name: "T"}}}},
		{"NOT SYS", false, [][]leaf{{{op: "var", name: "SYS", want: true}}}},
		{"T AND B", false, [][]leaf{{{op: "var", name: "T"}}, {{op: "var", name: "B"}}}},
		{"T OR B", false, [][]leaf{{{op: "var", name: "T"}, {op: "var", name: "B"}}}},
		{"(T OR X) AND ${B}", false, [][]leaf{{{op: "var", name: "B"}}}}, // X is not settable
		{"CMAKE_CXX_COMPILER_ID STREQUAL \"GNU\"", false, nil},
		{"NOT DEFINED T", false, nil},
		{"TARGET gtest", true, nil},
		{"ON", true, [][]leaf{{}}},
	}
	for _, tt := range tests {
		cmds, err := parseCMake("if(" + tt.cond + ")\n")
		if err != nil || len(cmds) != 1 {
			t.Fatalf("parse %q: %v", tt.cond, err)
		}
		got := parseCond(cmds[0].Args).ways(tt.want, ok)
		if d := cmp.Diff(tt.ways, got, cmp.AllowUnexported(leaf{})); d != "" {
			t.Errorf("ways(%q, %t) (-want +got):\n%s", tt.cond, tt.want, d)
		}
	}
}

// TestCMakeReaderAttacks feeds the reader what a hostile package could ship: every
// case must end quickly, with the commands it read or a bounds error, never a hang or
// a huge allocation.
func TestCMakeReaderAttacks(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		bounds bool // the reader refuses it
	}{
		{"too large", strings.Repeat("a(b)\n", maxCMakeBytes/5+1), true},
		{"ifs nested too deep", strings.Repeat("if(A)\n", maxCMakeNesting+1), true},
		{"parentheses nested too deep", "if(" + strings.Repeat("(", 10000) + ")", true},
		{"too many commands", strings.Repeat("a()", maxCMakeCommands+1), true},
		{"a huge elseif chain", "if(A)\n" + strings.Repeat("elseif(B)\n", maxCMakeBranches+1) + "endif()\n", true},
		{"many unclosed brackets", "a(" + strings.Repeat("[[ ", 150000) + ")", false},
		{"many unclosed bracket comments", strings.Repeat("#[==[ x\n", 200000), false},
		{"a long NOT chain", "if(" + strings.Repeat("NOT ", 100000) + "A)\nadd_subdirectory(x)\nendif()\n", false},
		{"a long OR chain", "if(" + strings.Repeat("A OR ", 60000) + "A)\nadd_subdirectory(x)\nendif()\n", false},
		{"a deep if ladder at the limit", strings.Repeat("if(T)\n", maxCMakeNesting) + "add_subdirectory(tests)\n" + strings.Repeat("endif()\n", maxCMakeNesting), false},
		{"odd bytes", "\xef\xbb\xbfproject(\x00\x01)\n\r\nif(\xff)\nendif()", false},
		{"unbalanced endifs and elses", "endif()\nelse()\nelseif(A)\nendif()\nif(A)\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			s, err := readCMakeScript("CMakeLists.txt", tt.src)
			if tt.bounds != errors.Is(err, errCMakeBounds) {
				t.Fatalf("err = %v, want a bounds error %t", err, tt.bounds)
			}
			if err == nil {
				for i, c := range s.cmds {
					for k, g := range s.guards[i] {
						if k >= len(s.guards[i])-maxGuardsLooked {
							_ = g.cond.ways(!g.want, s.settable)
						}
					}
					if c.Name == "add_subdirectory" {
						_, _ = s.subdir(c, ".")
					}
				}
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %s", d)
			}
		})
	}
}

// FuzzReadCMake checks that any CMakeLists.txt text reads without a panic, that the
// commands' lines are within the text, and that the conditions and paths the rule
// looks at evaluate.
func FuzzReadCMake(f *testing.F) {
	f.Add(readLog(f, "cmake/leveldb-1.23.txt"))
	f.Add(readLog(f, "cmake/snappy-1.2.2.txt"))
	f.Add("if(NOT (A OR B) AND TARGET gtest)\nadd_subdirectory(\"${X}/t\" [=[b]=])\nelseif(C)\nelse()\nendif()\n")
	f.Add("#[[ c ]] set(X a CACHE BOOL \"d\") option(Y \"\" ON) cmake_dependent_option(Z d ON Y OFF)")
	f.Add("set(u https://h/Catch/v2/catch.hpp)\nfile(DOWNLOAD ${u} x)\nset(a ${a}${a})\nfile(DOWNLOAD ${a} y)\n")
	f.Fuzz(func(t *testing.T, src string) {
		s, err := readCMakeScript("sub/CMakeLists.txt", src)
		if err != nil {
			return
		}
		lines := strings.Count(src, "\n") + 1
		for i, c := range s.cmds {
			if c.Line < 1 || c.Line > lines {
				t.Fatalf("command %s at line %d of %d", c.Name, c.Line, lines)
			}
			for k, g := range s.guards[i] {
				_ = g.cond.eval(func(string, string) tri { return triTrue })
				if c.Name == "add_subdirectory" && k >= len(s.guards[i])-maxGuardsLooked {
					_ = g.cond.ways(g.want, s.settable) // as the rule looks, innermost first
				}
			}
			if c.Name == "add_subdirectory" {
				if p, ok := s.subdir(c, "."); ok && (strings.HasPrefix(p, "..") || strings.HasPrefix(p, "/")) {
					t.Fatalf("subdir %q leaves the repository", p)
				}
			}
			if c.Name == "file" {
				if url, ok := s.download(c); ok {
					if len(url) > maxExpanded {
						t.Fatalf("download URL of %d bytes", len(url))
					}
					frameworkOfDownload(url)
				}
			}
		}
	})
}

// TestCMakeSubdirRuleAttack runs the whole rule on a hostile tree: ifs nested to the
// limit, long elseif chains of long conditions, thousands of commands linking the
// vendored gtest, and the failing add_subdirectory() at the bottom. It must end
// quickly with a fix or a reason.
func TestCMakeSubdirRuleAttack(t *testing.T) {
	for _, tt := range []struct {
		name             string
		elseifs, linkers int
		fixed            bool // read and fixed, rather than refused as beyond the bounds
	}{
		{"within the bounds", 5, 1000, true},
		{"beyond the bounds", 40, 2000, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString("option(T_BUILD_TESTS \"tests\" ON)\n")
			cond := "T_BUILD_TESTS" + strings.Repeat(" AND T_BUILD_TESTS", 20)
			depth := maxCMakeNesting - 1
			for range depth {
				b.WriteString("if(" + cond + ")\n")
				for range tt.elseifs {
					b.WriteString("elseif(" + cond + ")\n")
				}
				b.WriteString("target_link_libraries(x gtest gmock)\n")
			}
			for range tt.linkers {
				b.WriteString("target_link_libraries(y gtest)\n")
			}
			line := strings.Count(b.String(), "\n") + 1
			b.WriteString("add_subdirectory(third_party/googletest)\n")
			b.WriteString(strings.Repeat("endif()\n", depth))
			tree := memTree{"CMakeLists.txt": b.String()}
			out := "CMake Error at CMakeLists.txt:" + strconv.Itoa(line) + " (add_subdirectory):\n  The source directory\n\n    /w/p/third_party/googletest\n\n  does not contain a CMakeLists.txt file.\n"
			f := Failure{Message: out, Output: out, Phase: "build"}
			start := time.Now()
			fix, why := makeCMakeSubdir(context.Background(), f, Env{Platform: debian(t), Plan: cmakePlan(), Files: tree.files(), ReadFile: tree.read})
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %s", d)
			}
			if (fix != nil) != tt.fixed || (!tt.fixed && !strings.Contains(why, "beyond the reader's bounds")) {
				t.Errorf("fix %v (%s), want a fix %t", fix, why, tt.fixed)
			}
			t.Logf("%d bytes in %s: fix %v %s", b.Len(), time.Since(start), fix != nil, why)
		})
	}
}
