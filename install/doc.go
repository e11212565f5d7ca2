// Package install stages a built package the way a distribution would package it: it
// runs the build system's own install step into a staging directory inside the
// sandbox, lists what it installed (and which of it is for developers: headers,
// pkg-config and CMake package files), decides from that which ELF files are the
// port's primary artifacts, and writes the staged tree as a reproducible tarball.
//
// What a package installs is a better account of its product than what its build tree
// happens to hold: the tree also has test programs, examples and intermediate objects.
// So when the install step staged a program or a library, the staged ELF files are the
// primary artifacts and the build tree's are secondary; programs the build-system
// metadata names as tests (ctest's test list, meson's introspection, automake's
// check_PROGRAMS) are never primary. A header-only library's own test programs are its
// primary artifacts; when ctest lists none (a project that never calls add_test),
// CMake's file API is asked which executables are built from the test directories,
// and its reply is read as the untrusted output of the package's build it is. A failed
// or missing install step is recorded, not fatal: the caller's rules then choose alone.
//
// The package is separate from the pipeline because all it needs is narrow: a way to
// run commands in the sandbox, a way to run the install lines as the build runs its
// plan commands, a way to scan a directory for ELF files, and the build facts it reads
// (repository, build system, plan, Go toolchain). It owns the install part of the run
// state ([atesor.Install]).
package install
