// Package deploy holds no code: it is the home of the files that run Atesor batches on
// existing engines — the worker image's Dockerfile, a Kubernetes Indexed Job with its
// merge Job (kubernetes/), and a GitHub Actions workflow with a shard matrix and a merge
// job (github-actions/) — and of the test that decodes them into the Kubernetes API types
// and checks the workflow's structure.
//
// It is a module of its own, so that the Kubernetes API packages its test needs never
// reach the dependencies of the atesor library; CI runs its test from this directory.
package deploy
