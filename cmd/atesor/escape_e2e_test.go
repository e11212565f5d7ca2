package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go/recipe"
	"github.com/eclipse-atesor/atesor-go/replay"
)

// hostileMakefile builds a small program and leaves a copy of it under a name that holds
// terminal escapes (window title, screen clear, an OSC 52 clipboard write) and, after a
// line break, a fenced atesor-commands block: printed raw, the name drives the terminal;
// written raw into the recipe, it adds a command block that a replay would run.
const hostileMakefile = `all: hostile

hostile: hostile.c
	$(CC) -O2 -o hostile hostile.c
	cp hostile "$$(printf 'evil\033]0;pwned\007\033[2J\033]52;c;cm0gLXJmIH4K\007\n` + "```" + `atesor-commands\ntouch PWNED\n` + "```" + `\nbin')"

check:
	./hostile
`

// portHostile writes the tiny hostile package and ports it offline; it returns the
// source directory, the output directory and the port's outcome.
func portHostile(t *testing.T, c *cli) (src, out string, o outcome) {
	t.Helper()
	src = filepath.Join(c.dir, "hostile")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"Makefile":  hostileMakefile,
		"hostile.c": "#include <stdio.h>\nint main(void) { puts(\"hostile\"); return 0; }\n",
	} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out = filepath.Join(c.dir, "out")
	start := time.Now()
	o = c.runFor(20*time.Minute, "port", "--offline", "--out", out, src)
	t.Logf("port in %s, exit %d:\n%s\n%s", time.Since(start).Round(time.Second), o.code, o.stdout, o.stderr)
	if o.code != exitOK {
		t.Fatalf("the port ended with exit %d, want a verified port", o.code)
	}
	return src, out, o
}

// TestE2EHostileArtifactName ports a tiny package whose build names an artifact with
// terminal escapes and, after a line break, an injected command block: the port ends
// verified, its output carries no raw ESC or BEL and shows the name escaped, and the
// recipe holds exactly one command block, without the injected command.
//
//	ATESOR_E2E=1 go test -count=1 -run '^TestE2EHostileArtifactName$' ./cmd/atesor/
func TestE2EHostileArtifactName(t *testing.T) {
	c := e2eCLI(t)
	_, out, o := portHostile(t, c)
	if strings.ContainsAny(o.stdout+o.stderr, "\x1b\x07") {
		t.Errorf("the port's output holds a raw terminal control character")
	}
	if !strings.Contains(o.stdout, `evil\x1b]0;pwned\x07`) {
		t.Errorf("the summary does not name the hostile artifact, escaped:\n%s", o.stdout)
	}
	md, err := os.ReadFile(filepath.Join(out, "hostile_recipe.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(md), "```atesor-commands"); n != 1 {
		t.Errorf("the recipe opens %d command blocks, want 1:\n%s", n, md)
	}
	cmds, err := recipe.Commands(string(md))
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range cmds {
		if strings.Contains(cmd, "PWNED") {
			t.Errorf("the injected command is in the recipe's command block: %q", cmd)
		}
	}
}

// TestE2EForeignReplay replays the hostile package's recipe folder as someone else's
// would be replayed:
//
//   - the report names the package's host directory, so a replay of the folder alone is
//     refused and says to name the source;
//
//   - the same folder with an injected block added by hand is refused;
//
//   - replayed with --source, only the real block runs (the name's injected block was
//     neutralised when the recipe was written), and the verdict is reproduced.
//
//     ATESOR_E2E=1 go test -count=1 -run '^TestE2EForeignReplay$' ./cmd/atesor/
func TestE2EForeignReplay(t *testing.T) {
	c := e2eCLI(t)
	src, out, _ := portHostile(t, c)
	recipePath := filepath.Join(out, "hostile_recipe.md")
	md, err := os.ReadFile(recipePath)
	if err != nil {
		t.Fatal(err)
	}
	// The folder alone: its report names a host directory.
	o := c.run("replay", recipePath)
	t.Logf("replay without --source: exit %d: %s", o.code, o.stderr)
	if o.code != exitUsage || !strings.Contains(o.stderr, "--source") || !strings.Contains(o.stderr, "path on this host") {
		t.Errorf("a report naming a host directory was not refused with how to replay: exit %d: %s", o.code, o.stderr)
	}

	// The folder with a block added by hand.
	forged := filepath.Join(c.dir, "forged")
	if err := os.MkdirAll(forged, 0o755); err != nil {
		t.Fatal(err)
	}
	rep, err := os.ReadFile(filepath.Join(out, "hostile_report.json"))
	if err != nil {
		t.Fatal(err)
	}
	injected := strings.Replace(string(md), "## Verification", "## Verification\n\n```atesor-commands\ntouch PWNED\n```\n", 1)
	if err := os.WriteFile(filepath.Join(forged, "hostile_recipe.md"), []byte(injected), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(forged, "hostile_report.json"), rep, 0o644); err != nil {
		t.Fatal(err)
	}
	o = c.run("replay", "--source", src, filepath.Join(forged, "hostile_recipe.md"))
	t.Logf("replay of the forged recipe: exit %d: %s", o.code, o.stderr)
	if o.code != exitUsage || !strings.Contains(o.stderr, "second atesor-commands block") {
		t.Errorf("a recipe with a second block was not refused: exit %d: %s%s", o.code, o.stdout, o.stderr)
	}

	// Named by the user, the source replays and only the real block runs.
	start := time.Now()
	o = c.runFor(20*time.Minute, "replay", "--json", "--source", src, recipePath)
	t.Logf("replay with --source in %s: exit %d:\n%s\n%s", time.Since(start).Round(time.Second), o.code, o.stdout, o.stderr)
	var res replay.Result
	if err := json.Unmarshal([]byte(o.stdout), &res); err != nil {
		t.Fatalf("replay --json: %v", err)
	}
	for _, cmd := range res.Commands {
		if strings.Contains(cmd, "PWNED") {
			t.Errorf("the replay ran the injected command %q", cmd)
		}
	}
	if res.Verdict == "" || (o.code != exitOK && o.code != exitFailed) {
		t.Errorf("the replay ended without a verdict: exit %d", o.code)
	}
	if strings.ContainsAny(o.stdout+o.stderr, "\x1b\x07") {
		t.Errorf("the replay's output holds a raw terminal control character")
	}
	if res.Verdict != replay.Reproduced {
		t.Errorf("replay %s: %+v %s", res.Verdict, res.Differs, res.Failure)
	}
}
