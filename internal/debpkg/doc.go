// Package debpkg reads Debian binary packages (.deb files, deb(5)): the files of the
// control member a package's export check needs (symbols, shlibs, control) and the
// shared libraries of the data member, without unpacking anything to disk. A .deb is
// untrusted input: every size is bounded and a damaged file is an error, never a panic.
package debpkg
