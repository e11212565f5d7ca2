package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// The tests in this file run writers in separate processes: the test binary re-executes
// itself with childEnv set to a role, and TestMain runs that role instead of the tests.
const (
	childEnv    = "ATESOR_MEMORY_TEST_CHILD"
	childDir    = "ATESOR_MEMORY_TEST_DIR"
	childWorker = "ATESOR_MEMORY_TEST_WORKER"
	childCount  = "ATESOR_MEMORY_TEST_COUNT"
)

func TestMain(m *testing.M) {
	if role := os.Getenv(childEnv); role != "" {
		if err := runChild(role); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func runChild(role string) error {
	ctx := context.Background()
	dir := os.Getenv(childDir)
	worker, _ := strconv.Atoi(os.Getenv(childWorker))
	count, _ := strconv.Atoi(os.Getenv(childCount))
	s, err := Open(dir, WithSandbox("debian-riscv64"))
	if err != nil {
		return err
	}
	if strings.HasPrefix(role, "crash-") {
		// Die the hard way between writing the temporary file and the rename.
		s.beforeRename = func(string) { syscall.Kill(os.Getpid(), syscall.SIGKILL) }
	}
	switch role {
	case "save-examples", "crash-examples":
		for i := range count {
			ok, err := s.Save(ctx, atesor.AgentFixer, workerExample(worker, i))
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("worker %d example %d was not saved", worker, i)
			}
		}
	case "save-recipes", "crash-recipes":
		for i := range count {
			if err := s.SaveRecipe(ctx, workerRecipe(worker, i)); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("unknown child role %q", role)
	}
	return nil
}

func workerExample(worker, i int) atesor.Example {
	return atesor.Example{
		Name:         fmt.Sprintf("worker %d fix %d", worker, i),
		BuildSystem:  atesor.BuildMake,
		RepoName:     fmt.Sprintf("repo-%d-%d", worker, i),
		ErrorPattern: fmt.Sprintf("error %d of worker %d", i, worker),
		Fix: &atesor.ExampleFix{Strategy: "s", Actions: []atesor.Action{
			{Type: atesor.ActionCommand, Command: "make"}}},
	}
}

func workerRecipe(worker, i int) atesor.CachedRecipe {
	return atesor.CachedRecipe{Package: fmt.Sprintf("pkg-%d-%d", worker, i), Source: "dir", Verified: true,
		BuildSystem: atesor.BuildMake, LastBuilt: time.Date(2025, 1, 1, 0, 0, i, 0, time.UTC)}
}

func startChildren(t *testing.T, role, dir string, workers, count int) []*exec.Cmd {
	t.Helper()
	var cmds []*exec.Cmd
	for w := range workers {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+role, childDir+"="+dir,
			childWorker+"="+strconv.Itoa(w), childCount+"="+strconv.Itoa(count))
		cmds = append(cmds, cmd)
	}
	return cmds
}

func runAll(t *testing.T, cmds []*exec.Cmd) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, len(cmds))
	outs := make([][]byte, len(cmds))
	for i, c := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = c.CombinedOutput()
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("writer process %d: %v\n%s", i, err, outs[i])
		}
	}
}

func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") || strings.Contains(e.Name(), ".install-") {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestConcurrentProcessesSaveExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 8 processes")
	}
	const workers, count = 8, 25
	dir := t.TempDir()
	if _, err := Open(dir); err != nil { // installs the bundled manual examples
		t.Fatal(err)
	}
	path := filepath.Join(dir, "fixer_examples.json")
	before, err := readDoc(path)
	if err != nil {
		t.Fatal(err)
	}
	manual := map[string]bool{}
	for _, e := range before.Examples {
		if e.IsManual() {
			manual[e.ID] = true
		}
	}
	runAll(t, startChildren(t, "save-examples", dir, workers, count))

	after, err := readDoc(path)
	if err != nil {
		t.Fatalf("the file is not valid after concurrent saves: %v", err)
	}
	if got := len(after.Examples); got != MaxExamplesPerAgent {
		t.Fatalf("%d examples, want %d", got, MaxExamplesPerAgent)
	}
	seen := map[string]bool{}
	autos := 0
	for _, e := range after.Examples {
		if seen[e.ID] {
			t.Errorf("id %s appears twice", e.ID)
		}
		seen[e.ID] = true
		if !e.IsManual() {
			autos++
		}
	}
	for id := range manual {
		if !seen[id] {
			t.Errorf("manual example %s was dropped", id)
		}
	}
	// The 200 saves got the numbers 1..200 in the order they held the lock; the file keeps
	// the newest ones, that is the highest numbers.
	total := workers * count
	for n := total - autos + 1; n <= total; n++ {
		if id := fmt.Sprintf("fixer-auto-%03d", n); !seen[id] {
			t.Errorf("%s missing: the newest auto examples must stay", id)
		}
	}
	if autos != MaxExamplesPerAgent-len(manual) {
		t.Errorf("%d auto examples, want %d", autos, MaxExamplesPerAgent-len(manual))
	}
	if tf := tempFiles(t, dir); len(tf) != 0 {
		t.Errorf("leftover temporary files: %v", tf)
	}
}

func TestConcurrentProcessesSaveRecipes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 8 processes")
	}
	const workers, count = 8, 25
	dir := filepath.Join(t.TempDir(), "examples") // the cache is <home>/recipe_cache.json
	runAll(t, startChildren(t, "save-recipes", dir, workers, count))
	b, err := os.ReadFile(filepath.Join(filepath.Dir(dir), RecipeCacheFile))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := ParseRecipeCache(b)
	if err != nil {
		t.Fatalf("the cache is not valid after concurrent saves: %v", err)
	}
	if len(entries) != workers*count {
		t.Fatalf("%d entries, want %d", len(entries), workers*count)
	}
	for w := range workers {
		for i := range count {
			want := workerRecipe(w, i)
			want.Sandbox = "debian-riscv64"
			found := false
			for _, e := range entries {
				if e.Package == want.Package && e.Sandbox == want.Sandbox && e.LastBuilt.Equal(want.LastBuilt) {
					found = true
				}
			}
			if !found {
				t.Errorf("entry %s missing", want.Package)
			}
		}
	}
	if tf := tempFiles(t, filepath.Dir(dir)); len(tf) != 0 {
		t.Errorf("leftover temporary files: %v", tf)
	}
}

func TestWriterKilledBeforeRenameLeavesOldFile(t *testing.T) {
	for _, tc := range []struct {
		role, file string
		prepare    func(s *Store, i int) error
	}{
		{"crash-examples", "examples/fixer_examples.json", func(s *Store, i int) error {
			_, err := s.Save(context.Background(), atesor.AgentFixer, workerExample(99, i))
			return err
		}},
		{"crash-recipes", RecipeCacheFile, func(s *Store, i int) error {
			return s.SaveRecipe(context.Background(), workerRecipe(99, i))
		}},
	} {
		t.Run(tc.role, func(t *testing.T) {
			home := t.TempDir()
			dir := filepath.Join(home, "examples")
			s, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.prepare(s, 0); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(home, tc.file)
			old, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			cmd := startChildren(t, tc.role, dir, 1, 1)[0]
			out, err := cmd.CombinedOutput()
			ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if err == nil || !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Fatalf("the writer was not killed: %v\n%s", err, out)
			}
			now, err := os.ReadFile(path)
			if err != nil || string(now) != string(old) {
				t.Fatalf("the old file changed after the writer died (err %v)", err)
			}
			if tf := tempFiles(t, filepath.Dir(path)); len(tf) != 1 {
				t.Fatalf("want the dead writer's temporary file, found %v", tf)
			}
			// The next writer succeeds and removes the leftover.
			if err := tc.prepare(s, 1); err != nil {
				t.Fatal(err)
			}
			if tf := tempFiles(t, filepath.Dir(path)); len(tf) != 0 {
				t.Errorf("leftover temporary files after the next write: %v", tf)
			}
			var v any
			b, _ := os.ReadFile(path)
			if err := json.Unmarshal(b, &v); err != nil {
				t.Errorf("file invalid after the next write: %v", err)
			}
		})
	}
}
