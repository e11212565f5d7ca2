package gotool

import (
	gocmp "cmp"
	"go/version"
	"strings"
	"testing"
)

// TestGoVersionOrder pins the order the toolchain decision relies on (go/version):
// a language version sorts before its release candidates, which sort before its
// first release.
func TestGoVersionOrder(t *testing.T) {
	order := []string{"go1.20", "go1.21", "go1.21rc1", "go1.21.0", "go1.22", "go1.22.0", "go1.22.1",
		"go1.22.10", "go1.23rc1", "go1.23rc2", "go1.23.0", "go1.24.4", "go1.27.3"}
	for i := range order {
		for j := range order {
			got := version.Compare(order[i], order[j])
			want := gocmp.Compare(i, j)
			if got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", order[i], order[j], got, want)
			}
		}
	}
}

func TestGoModRequired(t *testing.T) {
	tests := []struct {
		goLine, toolchain, want string
	}{
		{"", "", ""},
		{"1.16", "", "go1.16"},
		{"1.20", "", "go1.20"},
		{"1.21", "", "go1.21.0"},
		{"1.27", "", "go1.27.0"},
		{"1.27.3", "", "go1.27.3"},
		{"1.25rc1", "", "go1.25rc1"},
		{"1.22", "go1.22.5", "go1.22.5"},
		{"1.22.1", "go1.21.0", "go1.22.1"},
		{"1.22", "default", "go1.22.0"},
		{"1.22", "go1.27.3-bigcorp", "go1.27.3"},
		{"1.22", "go1.27.3+auto", "go1.27.3"},
	}
	for _, tt := range tests {
		got := goModVersions{Go: tt.goLine, Toolchain: tt.toolchain}.required()
		if got != tt.want {
			t.Errorf("go %q toolchain %q: required %q, want %q", tt.goLine, tt.toolchain, got, tt.want)
		}
	}
}

func TestNeedsNewerGo(t *testing.T) {
	tests := []struct {
		req, suite string
		want       bool
	}{
		{"", "go1.24.4", false},
		{"go1.22.0", "go1.24.4", false},
		{"go1.24.4", "go1.24.4", false},
		{"go1.24.5", "go1.24.4", true},
		{"go1.25rc1", "go1.24.4", true},
		{"go1.27.3", "go1.24.4", true},
		{"go1.21.0", "", true},
	}
	for _, tt := range tests {
		if got := needsNewerGo(tt.req, tt.suite); got != tt.want {
			t.Errorf("needsNewerGo(%q, %q) = %t, want %t", tt.req, tt.suite, got, tt.want)
		}
	}
}

func TestParseGoMod(t *testing.T) {
	tests := []struct {
		name, mod string
		want      goModVersions
		err       string
	}{
		{"plain", "module example.com/m\n\ngo 1.27.3\n", goModVersions{Go: "1.27.3"}, ""},
		{"toolchain and comments", "// go 1.99\nmodule m // go 1.98\ngo 1.22 // the language\ntoolchain go1.27.3\n",
			goModVersions{Go: "1.22", Toolchain: "go1.27.3"}, ""},
		{"blocks are skipped", "module m\nrequire (\n\tgo v1.0.0\n\ttoolchain v1.0.0 // indirect\n)\nreplace (\n go => ./go\n)\ngo 1.23rc1\n",
			goModVersions{Go: "1.23rc1"}, ""},
		{"no go line", "module m\n", goModVersions{}, ""},
		{"crlf", "module m\r\ngo 1.25.0\r\n", goModVersions{Go: "1.25.0"}, ""},
		{"repeated", "go 1.21\ngo 1.22\n", goModVersions{}, "repeated go"},
		{"bad go", "go 1.22.x\n", goModVersions{}, "invalid go version"},
		{"go prefix", "go go1.22\n", goModVersions{}, "invalid go version"},
		{"bad toolchain", "go 1.22\ntoolchain 1.22\n", goModVersions{}, "invalid toolchain"},
		{"two words", "go 1.22 1.23\n", goModVersions{}, "usage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseGoMod([]byte(tt.mod))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// FuzzParseGoMod: go.mod files are untrusted input. A parse that succeeds yields a
// go line that names a valid Go version and a required release that is one.
func FuzzParseGoMod(f *testing.F) {
	f.Add("module m\ngo 1.27.3\ntoolchain go1.27.4\n")
	f.Add("module m\nrequire (\ngo v1\n)\ngo 1.21\n")
	f.Add("go 1.22 // x\ntoolchain default\n")
	f.Add("(\n)\n)\ngo 1.2rc1")
	f.Fuzz(func(t *testing.T, mod string) {
		v, err := parseGoMod([]byte(mod))
		if err != nil {
			return
		}
		if v.Go == "" {
			if v.required() != "" {
				t.Fatalf("no go line but required %q", v.required())
			}
			return
		}
		if !version.IsValid("go" + v.Go) {
			t.Fatalf("go line %q is not a valid version", v.Go)
		}
		if req := v.required(); !version.IsValid(req) || version.Compare(req, "go"+v.Go) < 0 {
			t.Fatalf("required %q for go %q", req, v.Go)
		}
	})
}
