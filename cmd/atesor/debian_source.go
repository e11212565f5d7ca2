package main

import (
	"context"
	"path/filepath"

	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/knowledge/debsrc"
	"github.com/eclipse-atesor/atesor-go/memory"
)

// debianResolver resolves debian:NAME sources through the Sources index of the sandbox's
// suite on the configured mirror ($ATESOR_DEBIAN_MIRROR, else the host's apt
// configuration), caching index and tarballs under <home>/downloads/debian.
func debianResolver(home string) *debsrc.Resolver {
	return &debsrc.Resolver{Mirror: debianMirrorSetting(), Suite: knowledge.DefaultDebianSuite, CacheDir: filepath.Join(home, "downloads", "debian")}
}

// resolveDebianSource resolves a debian:NAME[=VERSION] source for port.
func resolveDebianSource(ctx context.Context, source string) (*debsrc.Resolved, error) {
	home, err := memory.Home()
	if err != nil {
		return nil, err
	}
	return debianResolver(home).Resolve(ctx, source)
}
