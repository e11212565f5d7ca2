// Package optimize will hold performance mode: after a verified port it chooses a
// workload (a run of a built program, or a harness the optimizer agent writes: a C/C++
// harness, a Go benchmark or a Rust example), validates it, builds and runs it in the
// sandbox several times, and reports the median and spread. Numbers measured under
// emulation are not hardware numbers, and the reports say so.
//
// The package has no code yet: performance mode is not part of this release.
package optimize
