// Package source gets a package's source onto the host, once, before a port starts: it
// tells how the source is given (a directory, a local or downloaded tarball, a git URL),
// names the package after it, downloads a tarball URL within size and stall bounds into
// a cache keyed by the URL, hashes the archive, unpacks it within the extraction bounds
// and finds its SOURCE_DATE_EPOCH. Credentials in a source URL are used to fetch and
// removed from every text shown or stored.
//
// It is separate from the pipeline so that a request flows down through it once and the
// pipeline only receives the result ([Source]); it is separate from the sandbox because
// nothing here runs inside one. A git source is not fetched here: it is cloned inside
// the sandbox, so [Resolve] only identifies it, and [Source.PrepareTree] gives the host
// directory its clone is copied out to.
package source
