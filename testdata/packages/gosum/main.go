// Command gosum prints the sum of its unsigned integer arguments.
//
// The sum is computed by sum, which this module implements only in amd64 and arm64
// assembly (sum_amd64.s, sum_arm64.s) declared in sum_asm.go, plus a portable Go
// version behind the purego build tag (sum_purego.go). A riscv64 build without the tag
// fails with "missing function body": the port needs -tags=purego.
package main

import (
	"fmt"
	"os"
	"strconv"
)

func main() {
	var xs []uint64
	for _, a := range os.Args[1:] {
		v, err := strconv.ParseUint(a, 10, 64)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gosum:", err)
			os.Exit(2)
		}
		xs = append(xs, v)
	}
	fmt.Println(sum(xs))
}
