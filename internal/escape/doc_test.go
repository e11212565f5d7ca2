package escape_test

import (
	"fmt"

	"github.com/eclipse-atesor/atesor-go/internal/escape"
)

func ExampleLine() {
	fmt.Println(escape.Line("libx.so\x1b]0;pwned\x07\n"))
	// Output: libx.so\x1b]0;pwned\x07\n
}
