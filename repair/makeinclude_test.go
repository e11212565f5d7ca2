package repair

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIncludedFiles(t *testing.T) {
	tests := []struct {
		name, mk string
		want     []string
	}{
		{"pd-lib-builder through a variable", "PDLIBBUILDER_DIR=pd-lib-builder/\ninclude $(PDLIBBUILDER_DIR)/Makefile.pdlibbuilder\n",
			[]string{"pd-lib-builder/Makefile.pdlibbuilder"}},
		{"literal, optional and several", "-include config.mk\nsinclude a.mk b.mk # c.mk\n", []string{"config.mk", "a.mk", "b.mk"}},
		{"an unknown variable, a function and a glob", "include $(TOP)/rules.mk\ninclude $(wildcard *.d)\ninclude *.mk\n", nil},
		{"no include", "all:\n\tcc -o x x.c\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, includedFiles(tt.mk)); d != "" {
				t.Errorf("includes (-want +got):\n%s", d)
			}
		})
	}
}

// TestWithIncludes: included files are read relative to make's directory, each once,
// a bounded depth deep, and never outside the tree.
func TestWithIncludes(t *testing.T) {
	tree := memTree{
		"src/Makefile":   "include common.mk\ninclude ../../etc/passwd\n",
		"src/common.mk":  "include deeper.mk\ninclude common.mk\n",
		"src/deeper.mk":  "include deepest.mk\nCFLAGS = -O2\n",
		"src/deepest.mk": "include last.mk\n",
		"src/last.mk":    "CFLAGS = -O3\n",
	}
	read := func(ctx context.Context, p string) ([]byte, error) {
		if b, ok := tree[p]; ok {
			return []byte(b), nil
		}
		return nil, errors.New("no " + p)
	}
	got := withIncludes(context.Background(), read, "src", []byte(tree["src/Makefile"]))
	var texts []string
	for _, b := range got {
		texts = append(texts, string(b))
	}
	want := []string{tree["src/Makefile"], tree["src/common.mk"], tree["src/deeper.mk"], tree["src/deepest.mk"]}
	if d := cmp.Diff(want, texts); d != "" {
		t.Errorf("makefiles (-want +got):\n%s", d)
	}
}

func FuzzIncludedFiles(f *testing.F) {
	f.Add("D=x/\ninclude $(D)/a.mk ${D}b.mk\n")
	f.Add("include ../../../x\n-include\n")
	f.Fuzz(func(t *testing.T, mk string) {
		for _, n := range includedFiles(mk) {
			if strings.ContainsAny(n, "$*?[") {
				t.Fatalf("name %q", n)
			}
		}
	})
}
