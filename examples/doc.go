// Package examples holds runnable programs that show how to embed Atesor, one folder
// each (package main): porting a package from Go code with the default pieces (port), a
// custom Provider (custom-provider), a custom Sandbox (ssh-sandbox), a replaced analyst
// node that asks a model through the run's services (node-test), a replaced build node
// that runs commands through the run's sandbox (custom-node), building in the sandbox
// directly (sandbox-build), and tracing every node and model call with an Eino callback
// handler (trace).
package examples
