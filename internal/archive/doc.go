// Package archive reads and unpacks the archives a port handles: source tarballs (a
// local file, a download, a Debian .orig.tar), the root filesystem the sandbox is made
// from and the tar stream of a container copy-out. Archives come from outside and are
// hostile until proven otherwise, so unpacking is bounded (bytes, counting a sparse
// entry by its logical size and every hard link by its target's size; entries), stops
// when its context ends, writes only through an [os.Root] of the destination, and
// refuses entries that would land outside it.
//
// It lives below both package source (which unpacks a package's tarball) and package
// sandbox (whose copy-in unpacks a tarball into a sandbox and whose provisioning
// unpacks a root filesystem), so the two share one implementation of those checks.
package archive
