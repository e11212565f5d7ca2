// Package fixapply carries out a fix's actions in the package's tree inside the
// sandbox: a command only after validate's fix-command rules pass it again, a new file
// through the sandbox's own WriteFile, a unified diff with patch(1). It also runs the
// fixer's one round of read-only investigation commands under their limits.
//
// It is separate from the pipeline because applying is the same whoever proposed the
// fix (a model's strategy, a scripted rule, a resumed run putting its fixes back) and
// is where the rules that keep a fix inside the tree are enforced; the pipeline keeps
// the asking and the bookkeeping. It takes the sandbox and plain values, and reports
// what it did as a [Done] the caller writes into the run state and the recipe.
package fixapply
