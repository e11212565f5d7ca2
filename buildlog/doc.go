// Package buildlog reads the output of a failed build command the way a porter does and
// returns the error that failed it.
//
// Everything after a failed build reads one string (the fixer's prompt, which shows the
// first 3000 characters of the error, ClassifyError and the supervisor's error-loop
// rule, the error_pattern of learned fixer examples, the scripted repairs and the
// escalation reason). [Extract] builds that string from a command's output:
//
//   - it anchors on the failure: make's "*** [target] Error N" lines, ninja's "FAILED:",
//     "CMake Error", "configure: error:", meson's "ERROR:", go's and cargo's error blocks,
//     and otherwise the end of the output, where the failing command exited;
//   - it walks back to the first real diagnostic of the failing target: a compiler
//     "error:" with its file:line and its "In file included from" chain, a linker's
//     "undefined reference" or "cannot find -l", a missing program;
//   - weak signals ("not found", "warning:", "checking for ... no", documentation tools)
//     never outrank strong ones, and a failure summary ("make: *** [all] Error 2") only
//     stands in when the log holds no diagnostic at all;
//   - with parallel make the output of several targets interleaves, so a diagnostic of
//     the target make reports failed is preferred over one of a target that was still
//     running.
//
// The result's first line is the diagnostic itself, then its context, then the failing
// command's last lines, at most [MaxChars] characters.
//
// When a parallel build's log holds no strong diagnostic a porter reruns the build with
// one job to get a clean error; [Parallel] and [Serial] tell whether a command line built
// in parallel and how to run it serially. The rerun itself belongs to graph's build node.
//
// The package imports only the root package and the standard library: it sits below graph
// and repair, next to knowledge, so every reader of a build log can use it.
package buildlog
