package debsrc

import (
	"testing"
)

// TestGoPackage: the golang-*-dev package of the source whose Go-Import-Path is the
// import path or the longest one it lies below (trixie's stanzas, cut down); a path no
// source builds, or no valid path, has none.
func TestGoPackage(t *testing.T) {
	index := "Package: golang-ginkgo\nBinary: golang-github-onsi-ginkgo-dev\nVersion: 1.16.5-6\nGo-Import-Path: github.com/onsi/ginkgo\n\n" +
		"Package: golang-gomega\nBinary: golang-gomega-dev\nVersion: 1.27.10-1\nGo-Import-Path: github.com/onsi/gomega\n\n" +
		"Package: golang-github-onsi-ginkgo-v2\nBinary: ginkgo,\n golang-github-onsi-ginkgo-v2-dev\nVersion: 2.19.0-1\nXS-Go-Import-Path: github.com/onsi/ginkgo/v2\n\n" +
		"Package: tool\nBinary: tool\nVersion: 1\nGo-Import-Path: github.com/a/tool\n"
	r := &Resolver{}
	r.once.Do(func() { r.index = []byte(index) })
	tests := []struct{ path, pkg, src string }{
		{"github.com/onsi/ginkgo", "golang-github-onsi-ginkgo-dev", "golang-ginkgo"},
		{"github.com/onsi/gomega/gbytes", "golang-gomega-dev", "golang-gomega"},
		{"github.com/onsi/ginkgo/v2/dsl", "golang-github-onsi-ginkgo-v2-dev", "golang-github-onsi-ginkgo-v2"},
		{"github.com/onsi/ginkgoo", "", ""},
		{"github.com/a/tool", "", ""}, // no -dev package
		{"../etc", "", ""},
	}
	for _, tt := range tests {
		pkg, src, err := r.GoPackage(t.Context(), tt.path)
		if err != nil || pkg != tt.pkg || src != tt.src {
			t.Errorf("GoPackage(%q) = %q %q %v, want %q %q", tt.path, pkg, src, err, tt.pkg, tt.src)
		}
	}
}
