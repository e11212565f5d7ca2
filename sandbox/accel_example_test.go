package sandbox_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// AccelStatus says, without changing anything, whether the accelerator layers of a
// platform exist under a state home and which toolchain a run starting now would use.
// Under a fresh state home nothing is made yet, so a run would be emulated, and says why.
func ExampleAccelStatus() {
	home, err := os.MkdirTemp("", "atesor-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(home)
	for _, name := range []string{"debian", "alpine"} {
		p, err := knowledge.Profile(name)
		if err != nil {
			log.Fatal(err)
		}
		info, err := sandbox.AccelStatus(context.Background(), p, sandbox.WithHome(home))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %s\n", info.Key, info.State)
		fmt.Println("  C/C++:", info.Toolchain.C)
		fmt.Println("  Go:", info.Toolchain.Go)
	}
	// Output:
	// debian-riscv64-accel: absent
	//   C/C++: emulated: the accelerator is not made yet (the next run makes it, about 2 minutes)
	//   Go: emulated: the accelerator is not made yet (the next run makes it, about 2 minutes)
	// alpine-riscv64-accel: absent
	//   C/C++: emulated: acceleration is made for the Debian profile only
	//   Go: emulated: acceleration is made for the Debian profile only
}

// ProvisionAccel makes the accelerator layers beside the cached root filesystem (which
// Provision makes first); a Rootfs sandbox does both by itself when it opens, so an
// embedder calls them only to prepare a machine ahead of its runs (as `atesor sandbox
// create` does). It needs root, the host tools of the root-filesystem sandbox and
// the distribution's archive, so this example is compiled but not run.
func ExampleProvisionAccel() {
	ctx := context.Background()
	p, err := knowledge.Profile("debian")
	if err != nil {
		log.Fatal(err)
	}
	// qemu-riscv64 in binfmt_misc is the one host-wide change, an explicit step.
	if err := sandbox.SetupBinfmt(); err != nil {
		log.Fatal(err)
	}
	if _, err := sandbox.Provision(ctx, p); err != nil {
		log.Fatal(err)
	}
	meta, err := sandbox.ProvisionAccel(ctx, p)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("native cross tools:", meta.Packages)
	info, err := sandbox.AccelStatus(ctx, p)
	if err != nil {
		log.Fatal(err)
	}
	// For example: "C/C++ accelerated (binutils-riscv64-linux-gnu 2.44-3, ...); Go emulated:
	// golang-1.24-go is not installed (the native build of 1.24.4-1 is ready for when it is)".
	fmt.Println(info.Toolchain)
}
