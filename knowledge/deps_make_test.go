package knowledge

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// A Makefile whose recipes run the go command needs Go, which a make build's tools do
// not include: the dependency is detected with the recipe line as evidence.
func TestMakefileRunningGoNeedsGo(t *testing.T) {
	goMod := "module example.com/x\n\ngo 1.22\n"
	tests := []struct {
		name  string
		files map[string]string
		want  []atesor.Dependency
	}{
		{"go build in a recipe", map[string]string{"Makefile": "all:\n\tcd src && go build -o ../bin/x .\n", "src/go.mod": goMod, "src/main.go": "package main\nfunc main(){}\n"},
			[]atesor.Dependency{{Name: "go", Evidence: "Makefile:2"}}},
		{"$(GO) test", map[string]string{"Makefile": "GO ?= go\n\nall:\n\t@echo ok\n\ncheck:\n\t$(GO) test ./...\n", "src/go.mod": goMod},
			[]atesor.Dependency{{Name: "go", Evidence: "Makefile:7"}}},
		{"go in a comment or a word", map[string]string{"Makefile": "# go build is not used\nall:\n\techo go build\n\tcargo build\n"},
			[]atesor.Dependency{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			det, err := Detect(context.Background(), writeTree(t, tt.files))
			if err != nil {
				t.Fatal(err)
			}
			if det.BuildSystem != atesor.BuildMake {
				t.Fatalf("build system %s", det.BuildSystem)
			}
			if d := cmp.Diff(tt.want, det.Dependencies); d != "" {
				t.Errorf("dependencies (-want +got):\n%s", d)
			}
		})
	}
}
