// Package memory is Atesor's few-shot example store and recipe cache.
//
// A [Store] keeps one JSON file per agent in an examples directory
// (<home>/data/examples/, see [Home] and [ExamplesDir]):
//
//   - scout_examples.json: build plans, used by the scout prompt;
//   - fixer_examples.json: error patterns and fixes, used by the fixer prompt;
//   - builder_examples.json: build phases, saved after verified ports but used by no prompt;
//   - supervisor_examples.json: a legacy v1.0 file (context, expected_output) that no code
//     reads; it is shipped because example directories are shared with Atesor's Python
//     implementation, which still reads it.
//
// The bundled files of this package (directory bundled/, embedded with go:embed, schema in
// bundled/README.md) are copied into the examples directory when [Open] finds them missing;
// an existing file is never replaced.
//
// [Store.Relevant] filters examples by sandbox (an example without one belongs to
// alpine-riscv64), scores them with a fixed table (see [Score]), caps each
// score at 1.0, keeps positive scores and returns the best first, ties in file order.
// [Format] renders them for a prompt.
//
// [Store.Save] adds a learned example under the learning rules: name and build_system are
// required, duplicates are skipped, ids are <agent>-auto-NNN computed from the file on disk
// while <file>.lock is held, and each file keeps at most 100 examples (every manual one, the
// newest auto ones). Every write replaces the file atomically (temporary file in the same
// directory, fsync, rename, fsync of the directory), so readers never see half a file and a
// crashed writer leaves the old file intact.
//
// The recipe cache (recipe_cache.json, by default beside the examples directory, that is
// <home>/data/recipe_cache.json) holds one entry per package and sandbox with what a cache
// hit needs to write the recipe and report without building; see [Store.RecipeFor].
//
// Files that are not valid JSON never lose data: the error is logged with the path, the
// agent gets no examples (or the cache misses), and every write to that file fails with an
// error naming it until a person repairs it.
//
// [Merge] and [MergeRecipeCaches] combine the files of sharded batch runs, and
// [CheckDuplicateKeys] finds JSON objects that hold one key twice.
//
// [Learn] is what a verified port teaches, decided here beside the files it lands in:
// the examples ([ExamplesFrom]: the scout's plan, each proven fix, the builder's phases)
// and the recipe-cache entry ([RecipeFrom]), read from the run's state.
package memory
