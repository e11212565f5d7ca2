package memory_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/memory"
)

// Open a state home, ask for the fixer examples that match a build error, and render them
// for a prompt the way the fixer node does (2 examples, 2000 characters).
func Example() {
	home, _ := os.MkdirTemp("", "atesor-home")
	defer os.RemoveAll(home)

	store, err := memory.Open(memory.ExamplesDir(home), memory.WithSandbox("debian-riscv64"))
	if err != nil {
		fmt.Println(err)
		return
	}
	q := atesor.Query{
		BuildSystem:  atesor.BuildAutotools,
		ErrorMessage: "checking build system type... ./build-aux/config.guess: unable to guess system type",
	}
	examples, err := store.Relevant(context.Background(), atesor.AgentFixer, q, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(examples[0].ID, examples[0].Name)
	for _, a := range examples[0].Fix.Actions {
		fmt.Println(" ", a.Command)
	}
	prompt := memory.Format(examples, 2000)
	fmt.Println(len(prompt) <= 2000)
	_, err = os.Stat(filepath.Join(home, "data", "examples", "scout_examples.json"))
	fmt.Println(err == nil)
	// Output:
	// fixer-000 Outdated config.guess and config.sub
	//   apt-get install -y autotools-dev
	//   cp /usr/share/misc/config.guess build-aux/config.guess
	//   cp /usr/share/misc/config.sub build-aux/config.sub
	// true
	// true
}

// Save a learned example after a verified port: it gets an auto id, source auto and
// today's date; saving the same repository again is skipped as a duplicate.
func ExampleStore_Save() {
	dir, _ := os.MkdirTemp("", "atesor-examples")
	defer os.RemoveAll(dir)
	store, _ := memory.Open(dir, memory.WithSandbox("alpine-riscv64"))
	ex := atesor.Example{
		Name:        "Auto: zlib (autotools)",
		Tags:        []string{"autotools", "zlib"},
		BuildSystem: atesor.BuildAutotools,
		RepoName:    "zlib",
		Phases:      []atesor.Phase{{Name: "build", Commands: []string{"./configure", "make -j$(nproc)"}}},
	}
	saved, err := store.Save(context.Background(), atesor.AgentBuilder, ex)
	fmt.Println(saved, err)
	saved, err = store.Save(context.Background(), atesor.AgentBuilder, ex)
	fmt.Println(saved, err)
	// Output:
	// true <nil>
	// false <nil>
}
