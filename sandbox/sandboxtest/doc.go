// Package sandboxtest provides a fake [atesor.Sandbox] for other packages' tests:
// command results scripted by regular expression or prefix, a real file tree in a
// temporary directory (with the same path rules as the real sandboxes), and a record of
// every command it was asked to run. It runs nothing.
package sandboxtest
