package repair_test

import (
	"context"
	"fmt"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/repair"
)

// A build failed because a header is missing: the missing-package rule looks the header
// up in the archive's Contents index and installs its package.
func ExamplePropose() {
	index, _ := repair.ParseContents(strings.NewReader("usr/include/popt.h    libdevel/libpopt-dev\n"), "riscv64-linux-gnu")
	out := "a.c:2:10: fatal error: popt.h: No such file or directory\ncompilation terminated."
	f := repair.Failure{Category: atesor.ClassifyError(out), Message: out, Phase: "build", Command: "make -j$(nproc)"}
	fix, _ := repair.Propose(context.Background(), f, repair.Env{Packages: index}, nil)
	fmt.Println(fix.Rule)
	fmt.Println(fix.Actions[0].Command)
	// Output:
	// missing-package
	// apt-get install -y libpopt-dev
}
