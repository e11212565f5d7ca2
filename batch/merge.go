package batch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/eclipse-atesor/atesor-go/internal/atomicfile"
	"github.com/eclipse-atesor/atesor-go/internal/ctxio"
	"github.com/eclipse-atesor/atesor-go/memory"
)

// exampleFiles are the learned few-shot example files merged from each shard.
var exampleFiles = []string{"scout_examples.json", "fixer_examples.json", "builder_examples.json"}

// Merge combines the batch output directories srcs (one per shard) into dst:
//
//   - results.jsonl: per package the record that finished last (on equal times the one
//     met first, srcs in order), written sorted by name;
//   - each chosen record's package directory, copied from its shard;
//   - summary.json, summary.md and dashboard.html over the packages every shard listed
//     (a package pending in one shard and finished in another counts as finished);
//   - learned/: the few-shot example files with memory.Merge's rules and the recipe
//     caches with memory.MergeRecipeCaches (newest last_built wins).
//
// Merging the same shards again changes nothing. dst must not be one of srcs. ctx ends
// the copies and the waits for the learned files' locks.
func Merge(ctx context.Context, dst string, srcs ...string) (*Summary, error) {
	if len(srcs) == 0 {
		return nil, errors.New("batch: merge needs at least one shard directory")
	}
	absDst, err := filepath.Abs(dst)
	if err != nil {
		return nil, fmt.Errorf("batch: %w", err)
	}
	records := map[string]Record{}
	from := map[string]string{}
	var names, shards []string
	merged := &Summary{}
	for _, src := range srcs {
		abs, err := filepath.Abs(src)
		if err != nil {
			return nil, fmt.Errorf("batch: %w", err)
		}
		if abs == absDst {
			return nil, fmt.Errorf("batch: merge into %s, which is also a shard directory: choose another output directory", dst)
		}
		s, err := ReadSummary(src)
		if err != nil {
			return nil, fmt.Errorf("batch: %s is not a batch output directory (no readable %s): %w", src, SummaryJSON, err)
		}
		rs, err := ReadResults(src)
		if err != nil {
			return nil, err
		}
		for _, r := range s.Packages {
			names = append(names, r.Name)
		}
		names = append(names, s.Pending...)
		shards = append(shards, s.Shards...)
		merged.ElapsedSeconds = max(merged.ElapsedSeconds, s.ElapsedSeconds)
		merged.Interrupted = merged.Interrupted || s.Interrupted
		for _, r := range rs {
			if old, ok := records[r.Name]; ok && !r.FinishedAt.After(old.FinishedAt) {
				continue
			}
			records[r.Name] = r
			from[r.Name] = src
		}
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return nil, fmt.Errorf("batch: %w", err)
	}
	// Records of the destination from an earlier merge still count, so a merge of
	// one more shard keeps the others.
	old, err := ReadResults(dst)
	if err != nil {
		return nil, err
	}
	if prev, err := ReadSummary(dst); err == nil {
		for _, r := range prev.Packages {
			names = append(names, r.Name)
		}
		names = append(names, prev.Pending...)
		shards = append(shards, prev.Shards...)
		merged.ElapsedSeconds = max(merged.ElapsedSeconds, prev.ElapsedSeconds)
	}
	for _, r := range old {
		if cur, ok := records[r.Name]; !ok || r.FinishedAt.After(cur.FinishedAt) {
			records[r.Name] = r
			delete(from, r.Name)
		}
	}
	for name, src := range from {
		r := records[name]
		if r.Dir == "" || !filepath.IsLocal(r.Dir) {
			continue
		}
		if err := copyTree(ctx, filepath.Join(src, r.Dir), filepath.Join(dst, r.Dir)); err != nil {
			return nil, err
		}
	}
	var lines []byte
	for _, r := range sortedRecords(records) {
		b, err := marshalLine(r)
		if err != nil {
			return nil, err
		}
		lines = append(lines, b...)
	}
	if err := writeAtomic(filepath.Join(dst, ResultsFile), lines); err != nil {
		return nil, err
	}
	s := Summarize(names, records)
	slices.Sort(shards)
	s.Shards = slices.Compact(shards)
	s.ElapsedSeconds = merged.ElapsedSeconds
	s.Interrupted = len(s.Pending) > 0 && merged.Interrupted
	if err := mergeLearned(ctx, dst, srcs); err != nil {
		return nil, err
	}
	if err := WriteSummaries(dst, s); err != nil {
		return nil, err
	}
	return s, nil
}

// mergeLearned merges the learned/ files of srcs into dst/learned.
func mergeLearned(ctx context.Context, dst string, srcs []string) error {
	ldst := filepath.Join(dst, LearnedDir)
	for _, name := range append(slices.Clone(exampleFiles), memory.RecipeCacheFile) {
		var files []string
		for _, src := range srcs {
			p := filepath.Join(src, LearnedDir, name)
			if _, err := os.Stat(p); err == nil {
				files = append(files, p)
			}
		}
		if len(files) == 0 {
			continue
		}
		if err := os.MkdirAll(ldst, 0o755); err != nil {
			return fmt.Errorf("batch: %w", err)
		}
		merge := memory.Merge
		if name == memory.RecipeCacheFile {
			merge = memory.MergeRecipeCaches
		}
		if err := merge(ctx, filepath.Join(ldst, name), files...); err != nil {
			return fmt.Errorf("batch: merge %s: %w", name, err)
		}
	}
	return nil
}

// ExportLearned merges the example files of examplesDir and the recipe cache file
// recipeCache into dir (a batch's learned/ directory), creating what is missing. It is
// what Config.Learned usually does. ctx ends the waits for the files' locks.
func ExportLearned(ctx context.Context, examplesDir, recipeCache, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("batch: %w", err)
	}
	for _, name := range exampleFiles {
		src := filepath.Join(examplesDir, name)
		if _, err := os.Stat(src); err != nil {
			continue
		}
		if err := memory.Merge(ctx, filepath.Join(dir, name), src); err != nil {
			return fmt.Errorf("batch: %w", err)
		}
	}
	if _, err := os.Stat(recipeCache); err == nil {
		if err := memory.MergeRecipeCaches(ctx, filepath.Join(dir, memory.RecipeCacheFile), recipeCache); err != nil {
			return fmt.Errorf("batch: %w", err)
		}
	}
	return nil
}

// copyTree copies the regular files and directories of src into dst (symbolic links
// are skipped: a package's outputs never need them and they could point anywhere). Each
// file is written atomically, and ctx is checked between files and while a large file is
// copied, so an interrupted merge stops at once and leaves no half file.
func copyTree(ctx context.Context, src, dst string) error {
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil || strings.HasPrefix(rel, "..") {
			return fmt.Errorf("path %s outside %s", p, src)
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type().IsRegular():
			return copyFile(ctx, p, target)
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil // a package that failed before writing anything
	}
	if err != nil {
		return fmt.Errorf("batch: copy %s: %w", src, err)
	}
	return nil
}

func copyFile(ctx context.Context, src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := atomicfile.Create(dst, fi.Mode().Perm()|0o600)
	if err != nil {
		return err
	}
	defer out.Abort()
	if _, err := io.Copy(out, ctxio.Reader(ctx, in)); err != nil {
		return err
	}
	return out.Commit()
}
