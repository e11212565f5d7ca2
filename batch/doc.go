// Package batch ports many packages in one run: a list of sources (paths, URLs, git
// URLs or Debian source package names written debian:NAME[=VERSION]), a bounded number of
// concurrent ports (golang.org/x/sync/errgroup), a stable share of the list per shard
// (--shard I/N, defaulting from Kubernetes' JOB_COMPLETION_INDEX), and outputs that are
// written as the batch goes and survive an interruption:
//
//	OUT/NAME/            the outputs of one port (recipe, report, logs)
//	OUT/results.jsonl    one Record per finished package, appended as each finishes
//	OUT/summary.json     the Summary: counts by status and failure class, time, cost
//	OUT/summary.md       the same for people
//	OUT/dashboard.html   a self-contained page: table, verdicts, charts (inline SVG)
//	OUT/learned/         the learned few-shot examples and recipe cache of the run
//
// A rerun skips the packages results.jsonl lists as finished unless Rerun is set.
// [Merge] combines the output directories of several shards into one; merging again
// changes nothing.
package batch
