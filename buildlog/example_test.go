package buildlog_test

import (
	"fmt"

	"github.com/eclipse-atesor/atesor-go/buildlog"
)

func ExampleExtract() {
	output := `!! doxygen not found, not generating documentation
cc -O2 -c -o pigz.o pigz.c
pigz.c:372:10: fatal error: zlib.h: No such file or directory
  372 | #include <zlib.h>       // deflateInit2(), deflateReset(), deflate(), \
      |          ^~~~~~~~
compilation terminated.
make: *** [Makefile:17: pigz.o] Error 1`
	ev := buildlog.Extract(output)
	fmt.Println(ev.Diagnostic)
	fmt.Println(ev.Kind, ev.Strength, ev.Target, ev.Category())
	// Output:
	// pigz.c:372:10: fatal error: zlib.h: No such file or directory
	// compiler strong pigz.o dependency
}

func ExampleSerial() {
	if line, ok := buildlog.Serial("./configure && make -j$(nproc)"); ok {
		fmt.Println(line)
	}
	// Output:
	// ./configure && make -j1
}
