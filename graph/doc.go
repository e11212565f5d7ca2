// Package graph is the porting pipeline: an Eino compose graph whose nodes fetch the
// source, analyse it, plan, build, verify, fix and finish a port in a riscv64 sandbox,
// with the run state saved after every node, the recipe cache consulted first, and
// few-shot examples learned from verified ports.
package graph
