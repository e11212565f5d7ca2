// Package examples holds runnable programs that show how to embed Atesor, one folder
// each (package main): porting a package from Go code with the default pieces, a custom
// Provider, a custom Sandbox, and a unit test of a node with the fake provider.
package examples
