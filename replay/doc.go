// Package replay runs a port's recipe again in a fresh sandbox and compares what it
// builds with what the port built: every primary artifact's SHA-256.
//
// A recipe folder may be someone else's, so a replay trusts little of it: the source
// is the one the user names, or the report's only when every machine reaches and
// checks it (a tarball URL with its SHA-256, a git URL with its commit; never a path
// on this host, [ErrHostSource]); the source's hash or commit is checked before any
// command runs ([ErrSourceChanged]); names that become paths must be safe file names;
// only the Commands section's block runs ([recipe.Commands]), and it passes the rules a
// model's plan passes, as one plan, and the patches those of a fix.
//
// It is a package of its own because the replay's logic needs none of the pipeline: it
// reads its [Input] from a recipe folder or a recipe-cache entry, checks it ([Prepare]),
// and runs the checked commands through [Steps], which the pipeline implements with its
// own sandbox, patch and command machinery, so a replay runs them exactly as a port does.
package replay
