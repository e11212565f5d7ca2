// Package recipe is the machine-readable part of a porting recipe: the Commands
// section's fenced block of the exact commands a port ran, which a replay runs again.
//
// The recipe is Markdown that a model or a person may have written or edited, so the
// block is the only part a program reads back, and both sides of it live here: the
// writer ([AppendCommands]) first makes the text before the block unable to hold a
// block of its own ([Neutralize]), and the reader ([Commands]) takes the block from its
// own section only and refuses a recipe with any other block, an unclosed block or a
// command the block could not hold as one plain line.
//
// Two more rules of the recipe's text live here for the same reason, that a written
// recipe must say what the run proved whoever wrote it: [Verdict] is the verdict it
// states, and [WithVerification] puts the evidence into its Verification section when
// the writer left it out. [HasSections] is the shape every recipe must have (the six
// sections of [atesor.RecipeSections], in order), and [Fallback] is the recipe code
// writes when no model wrote one of that shape, from the run state and the evidence the
// other concerns give it as text ([Evidence]), so this package depends on none of them.
package recipe
