package testresult_test

import (
	"fmt"

	"github.com/eclipse-atesor/atesor-go/testresult"
)

func ExampleParse() {
	out := `Test project /workspace/pkg/build
    Start 1: bignum
1/3 Test #1: bignum ...........................   Passed    0.05 sec
    Start 2: strtod
2/3 Test #2: strtod ...........................***Exception: SegFault  0.31 sec
    Start 3: gpu
3/3 Test #3: gpu ..............................***Skipped   0.00 sec

50% tests passed, 1 tests failed out of 3

The following tests did not run:
	  3 - gpu (Skipped)

The following tests FAILED:
	  2 - strtod (SEGFAULT)
Errors while running CTest
`
	r := testresult.Parse(out)
	c := r.Counts
	fmt.Printf("%s: ran %d, passed %d, failed %d %v, skipped %d\n", c.Framework, c.Ran, c.Passed, c.Failed, c.FailedTests, c.Skipped)
	fmt.Println("died by a signal:", r.Signalled)

	fmt.Println(testresult.Parse("Test project /w/build\nNo tests were found!!!\n").NoTests)
	fmt.Println(testresult.Parse("*** zlib test OK ***\n").Note)
	// Output:
	// ctest: ran 2, passed 1, failed 1 [strtod], skipped 1
	// died by a signal: [strtod]
	// true
	// unknown test framework: the verdict is the command's exit code alone, no tests were counted
}
