// Package bundledcheck holds the test that checks every bundled few-shot example against
// the validators of package validate: every scout plan and builder phase list passes
// validate.BuildPlan and every fixer command action passes validate.FixCommand, so no
// bundled example teaches a model a form that the validators reject. It is a separate
// package so that the memory package's own tests do not depend on validate.
package bundledcheck
