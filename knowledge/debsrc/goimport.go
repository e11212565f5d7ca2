package debsrc

import (
	"bytes"
	"context"
	"strings"

	"golang.org/x/mod/module"
)

// GoPackage returns the binary package that installs the sources of Go import path
// importPath for GOPATH builds (under /usr/share/gocode/src): the golang-*-dev package
// of the source whose Go-Import-Path is importPath or the longest path it lies below,
// and that source's name. The Sources index knows what a Contents index would (the
// names do not follow one rule: github.com/onsi/gomega is golang-gomega-dev). "" when
// no source builds the path.
func (r *Resolver) GoPackage(ctx context.Context, importPath string) (pkg, source string, err error) {
	if module.CheckImportPath(importPath) != nil {
		return "", "", nil
	}
	idx, err := r.Index(ctx)
	if err != nil {
		return "", "", err
	}
	best := ""
	_ = ParseSources(bytes.NewReader(idx), func(s Source) bool {
		gip := s.GoImportPath
		if gip == "" || len(gip) < len(best) || (importPath != gip && !strings.HasPrefix(importPath, gip+"/")) {
			return true
		}
		for _, b := range s.Binaries {
			if strings.HasPrefix(b, "golang-") && strings.HasSuffix(b, "-dev") {
				best, pkg, source = gip, b, s.Package
				break
			}
		}
		return true
	})
	return pkg, source, nil
}
