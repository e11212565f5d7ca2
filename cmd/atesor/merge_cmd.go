package main

import (
	"context"
	"fmt"

	"github.com/eclipse-atesor/atesor-go/batch"
)

var mergeUsage = usage{
	synopsis: "atesor merge --out DIR SHARD_DIR... [flags]",
	description: `Combine the output directories of batch shards into one: per package the record that
finished last and its output directory, summary.json, summary.md and dashboard.html over
every shard's packages, and learned/ (the few-shot example files merged by id — a manual
example beats an auto one, then the newer timestamp — and the recipe caches, newest
last_built per package). Merging the same shards again changes nothing.

To use what the shards learned in later runs, merge the files of DIR/learned/ into the
state home with 'atesor examples merge'.`,
}

func runMerge(ctx context.Context, a *app, args []string) int {
	var out string
	fs := flagSet("merge")
	fs.StringVar(&out, "out", "atesor-merged", "output directory")
	pos, code, done := parseOrExit(a, fs, mergeUsage, args)
	if done {
		return code
	}
	if len(pos) == 0 {
		return usageError(a, "merge", "want at least one shard directory")
	}
	s, err := batch.Merge(ctx, out, pos...)
	if err != nil {
		fmt.Fprintf(a.stderr, "atesor merge: %v\n", err)
		return exitUsage
	}
	printBatchSummary(a.stdout, s, out)
	return exitOK
}
