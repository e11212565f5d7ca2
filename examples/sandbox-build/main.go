// Command sandbox-build provisions the Debian riscv64 sandbox (or reuses the cached one),
// builds a small C program inside it, and prints the artifact verdict. It needs root,
// qemu-user-static, mmdebstrap, bubblewrap and debian-archive-keyring.
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/verify"
)

const program = `#include <stdio.h>
int main(void) { printf("hello from riscv64\n"); return 0; }
`

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	debian, err := knowledge.Profile("debian")
	if err != nil {
		log.Fatal(err)
	}
	// Registering qemu-riscv64 in binfmt_misc changes the whole host, so the sandbox
	// never does it by itself (as root; a no-op when it is registered).
	if err := sandbox.SetupBinfmt(); err != nil {
		log.Fatal(err)
	}
	sb, err := sandbox.NewRootfs(ctx, debian, sandbox.WithRepo("hello"),
		sandbox.WithProgress(func(p sandbox.Progress) {
			fmt.Fprintf(os.Stderr, "[%5s] %-10s %s\n", p.Elapsed.Round(time.Second), p.Stage, p.Message)
		}))
	if err != nil {
		log.Fatal(err)
	}
	defer sb.Close()
	if err := sb.WriteFile(ctx, "hello.c", []byte(program), 0o644); err != nil {
		log.Fatal(err)
	}
	res, err := sb.Exec(ctx, atesor.Command{Line: "gcc -O2 -o hello hello.c && ./hello", Stdout: os.Stdout, Stderr: os.Stderr})
	if err != nil {
		log.Fatal(err)
	}
	if !res.OK() {
		log.Fatalf("build failed with exit code %d", res.ExitCode)
	}
	arts, err := verify.ScanArtifacts(ctx, sb, "/workspace/hello", nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range arts {
		verdict := "OK"
		if err := verify.CheckArtifact(a, debian); err != nil {
			verdict = "REJECTED: " + err.Error()
		}
		fmt.Printf("%s: %s %s %s abi=%s interp=%s sha256=%s... %s\n",
			a.Path, a.Kind, a.Class, a.Machine, a.FloatABI, a.Interpreter, a.SHA256[:12], verdict)
	}
}
