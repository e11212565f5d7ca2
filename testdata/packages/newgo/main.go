// Command newgo needs a newer Go than Debian trixie's 1.24: its go.mod says go 1.27.3,
// and it uses sync.WaitGroup.Go (Go 1.25). Porting it takes a toolchain fetched
// through the Go module proxy.
package main

import (
	"fmt"
	"runtime"
	"sync"
)

// squares returns the squares of 1..n, computed concurrently.
func squares(n int) []int {
	out := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { out[i] = (i + 1) * (i + 1) })
	}
	wg.Wait()
	return out
}

func main() {
	fmt.Println(runtime.Version(), runtime.GOARCH, squares(4))
}
