// Package gotool decides which Go toolchain builds a Go module in the sandbox and, when
// the distribution's Go is too old for the module, fetches the release the module asks
// for and puts it in front of the suite's.
//
// A go.mod whose go or toolchain line names a newer Go than the sandbox's distribution
// has cannot be built with the suite's Go: the go command would try to switch toolchains
// on its own, inside a sandbox where that download is neither checked nor recorded. So
// before the first go command of a build, [Ensure] reads the go.mod (with
// golang.org/x/mod/modfile, the go command's own parser), asks the sandbox's go for its
// version and, when that is older, fetches the release through the Go module proxy as
// the go command would (module golang.org/toolchain): the linux-riscv64 build when the
// proxy serves it, else, with the accelerated toolchain, the linux-amd64 build, which
// runs natively with GOARCH=riscv64 and builds the same binaries. The release is copied
// into the sandbox and a small go wrapper on PATH pins it (GOROOT, GOTOOLCHAIN=local).
//
// [ProxyFetcher] does the download with the host's go command, so the proxy, the
// checksum database and the module cache's locking are the go command's own; a
// [Fetcher] of an embedder's can replace it.
//
// The package is separate from the pipeline because the decision has narrow inputs (the
// sandbox, a fetcher, the go.mod's path, the toolchain a run recorded before) and one
// output, the [atesor.GoToolchain] the run records; it also holds the few rules other
// steps need to run the go command the same way: [Env], [InstallLine], [WithPlanTags].
package gotool
