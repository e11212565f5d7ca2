package repair

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// obsCLIGoPathBuild is go-module-gopath's build line of the real obs-cli run.
const obsCLIGoPathBuild = `export GO111MODULE=off GOPATH="$PWD/.gopath:/usr/share/gocode" && cd .gopath/src/github.com/muesli/obs-cli && ` + obsCLIBuild

// TestGoPointerReal runs the rule on the real GOPATH build output of obs-cli 0.4.0
// against goobs 0.8.0 (the compiler's first 10 errors) and that tarball's label.go and
// recording.go: five request fields get their response value's address, five
// dereferences of what is no pointer any more lose their *. It declines for a module
// build, for a column that does not hold the operand and for a file outside the tree.
func TestGoPointerReal(t *testing.T) {
	out := readLog(t, "go-pointer-obs-cli.log")
	f := Failure{Category: atesor.ClassifyError(out), Message: strings.TrimSpace(out), Output: out, Phase: "build", Command: obsCLIGoPathBuild, Packaged: true}
	tree := map[string]string{}
	for _, name := range []string{"label.go", "recording.go"} {
		b, err := os.ReadFile(filepath.Join("testdata", "gopointer", "obs-cli", name))
		if err != nil {
			t.Fatal(err)
		}
		tree[name] = string(b)
	}
	env := obsCLIEnv(t, obsCLIDist(), trixieGoPackage)
	fix, why := makeGoModuleGoPath(context.Background(), Failure{Message: readLog(t, "go-module-fetch-obs-cli.log"), Phase: "build", Packaged: true}, env)
	if fix == nil {
		t.Fatal(why)
	}
	goPath := goDistEnv(t, fix.Plan, tree, env.Detection, obsCLIDist(), trixieGoPackage)

	// go-exclude claims the compile errors too, and declines: they are in the root.
	fix, notes := Propose(context.Background(), f, goPath, nil)
	if fix == nil || fix.Rule != goPointerRuleName {
		t.Fatalf("fix %+v, want %s's (%v)", fix, goPointerRuleName, notes)
	}
	if len(fix.Actions) != 2 || fix.Actions[0].File != "label.go" || fix.Actions[1].File != "recording.go" {
		t.Fatalf("actions %+v", fix.Actions)
	}
	for _, s := range []string{"-\t\tDropShadow:  resp.DropShadow,\n+\t\tDropShadow:  &resp.DropShadow,\n", "+\t\tWordWrap:    &resp.WordWrap,\n"} {
		if !strings.Contains(fix.Actions[0].Diff, s) {
			t.Errorf("label.go's diff lacks %q:\n%s", s, fix.Actions[0].Diff)
		}
	}
	if strings.Contains(fix.Actions[0].Diff, "&resp.Font") || strings.Count(fix.Actions[0].Diff, "\n+\t") != 5 {
		t.Errorf("label.go's diff changes other lines:\n%s", fix.Actions[0].Diff)
	}
	for _, s := range []string{"-\tif !*r.IsRecording {\n+\tif !r.IsRecording {\n",
		"-\tfmt.Printf(\"Recording: %s\\n\", strconv.FormatBool(*r.IsRecording))\n+\tfmt.Printf(\"Recording: %s\\n\", strconv.FormatBool(r.IsRecording))\n",
		"+\tfmt.Printf(\"Paused: %s\\n\", strconv.FormatBool(r.IsRecordingPaused))\n"} {
		if !strings.Contains(fix.Actions[1].Diff, s) {
			t.Errorf("recording.go's diff lacks %q:\n%s", s, fix.Actions[1].Diff)
		}
	}
	if !strings.Contains(fix.Analysis, "10 operands in label.go, recording.go") {
		t.Errorf("analysis %q", fix.Analysis)
	}
	if err := check(fix, "/workspace/obs-cli"); err != nil {
		t.Errorf("the fix does not validate: %v", err)
	}

	tests := []struct {
		name string
		env  func() Env
		none string
	}{
		{"a module build", func() Env { e := goPath; e.Plan = env.Plan; return e }, "no GOPATH build"},
		{"the column holds something else", func() Env {
			e := goDistEnv(t, goPath.Plan, map[string]string{"label.go": strings.Replace(tree["label.go"], "resp.DropShadow", "resp.Shadow", 1),
				"recording.go": tree["recording.go"]}, env.Detection, obsCLIDist(), trixieGoPackage)
			return e
		}, "label.go:45:16 does not hold resp.DropShadow"},
		{"files outside the tree", func() Env {
			return goDistEnv(t, goPath.Plan, map[string]string{"main.go": "package main\n"}, env.Detection, obsCLIDist(), trixieGoPackage)
		}, "label.go is not a file of the tree"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fix, why := makeGoPointer(context.Background(), f, tt.env())
			wantFix(t, fix, why, tt.none)
		})
	}
}

// FuzzPointerDiff: the pointer edits of any output on any file never panic, and a diff
// they make changes only the lines the output names.
func FuzzPointerDiff(f *testing.F) {
	f.Add("./a.go:2:6: invalid operation: cannot indirect r.X (variable of type bool)\n", "package a\nvar _ = *r.X\n")
	f.Add("./a.go:2:9: cannot use v (variable of type int) as *int value in assignment\n", "package a\nvar _ = v\n")
	f.Fuzz(func(t *testing.T, out, content string) {
		var edits []pointerEdit
		for _, m := range goWantsPointer.FindAllStringSubmatch(out, 8) {
			line, _ := strconv.Atoi(m[2])
			col, _ := strconv.Atoi(m[3])
			edits = append(edits, pointerEdit{line: line - 1, col: col - 1, operand: m[4], addr: true})
		}
		for _, m := range goNoIndirect.FindAllStringSubmatch(out, 8) {
			line, _ := strconv.Atoi(m[2])
			col, _ := strconv.Atoi(m[3])
			edits = append(edits, pointerEdit{line: line - 1, col: col - 1, operand: m[4]})
		}
		diff, n, why := pointerDiff("a.go", content, edits)
		if why == "" && n > 0 && strings.Count(diff, "\n@@ ") > n {
			t.Fatalf("%d edits, diff %q", n, diff)
		}
	})
}
