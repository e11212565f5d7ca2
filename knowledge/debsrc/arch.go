package debsrc

import "strings"

// BuildsFor reports whether a source whose Architecture field lists archs has binary
// packages for the Linux architecture arch (riscv64): a field naming it or a wildcard
// that matches it (any, linux-any, any-riscv64, linux-riscv64), or all (architecture-
// independent packages build everywhere). An empty field says nothing and reports
// true, so only a field that leaves the architecture out reports false (libica is
// built for s390x alone).
func BuildsFor(archs []string, arch string) bool {
	if len(archs) == 0 {
		return true
	}
	for _, a := range archs {
		switch a {
		case "any", "all", "linux-any", arch, "linux-" + arch, "any-" + arch:
			return true
		}
	}
	return false
}

// ArchList is the field's architectures as a porter reads them: "s390x" or
// "amd64, arm64 and i386".
func ArchList(archs []string) string {
	switch len(archs) {
	case 0:
		return ""
	case 1:
		return archs[0]
	}
	return strings.Join(archs[:len(archs)-1], ", ") + " and " + archs[len(archs)-1]
}

// archFields splits an Architecture field; nil when it is empty.
func archFields(field string) []string {
	if f := strings.Fields(field); len(f) > 0 {
		return f
	}
	return nil
}
