package graph

import (
	"context"
	"errors"
	"testing"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/knowledge/debsrc"
	"github.com/eclipse-atesor/atesor-go/repair"
)

// TestDistributionCounterpart: the distribution-configure rule sees a Debian
// counterpart for a debian:NAME origin and for named tarballs, on a Debian platform
// only, and a source without one gets no lookup at all.
func TestDistributionCounterpart(t *testing.T) {
	deb, err := knowledge.Profile("debian")
	if err != nil {
		t.Fatal(err)
	}
	alpine, err := knowledge.Profile("alpine")
	if err != nil {
		t.Fatal(err)
	}
	origin := &atesor.DistroSource{Distro: "debian", Package: "spdlog", Version: "1:1.15.2+ds-2", Suite: "trixie"}
	cases := []struct {
		name     string
		platform atesor.Platform
		req      atesor.Request
		want     debsrc.Counterpart
		ok       bool
	}{
		{"a debian: origin", deb, atesor.Request{Source: "/dl/spdlog_1.15.2+ds.orig.tar.xz", Origin: origin},
			debsrc.Counterpart{Package: "spdlog", Version: "1.15.2+ds", Suite: "trixie"}, true},
		{"an upstream release by name", deb, atesor.Request{Source: "/src/zlib-1.3.1.tar.gz"},
			debsrc.Counterpart{Package: "zlib", Version: "1.3.1", Suite: knowledge.DebianSuite(deb), ByName: true}, true},
		{"a directory without a version", deb, atesor.Request{Source: "/src/vecsum"}, debsrc.Counterpart{}, false},
		{"not a Debian platform", alpine, atesor.Request{Source: "/src/zlib-1.3.1.tar.gz", Origin: origin}, debsrc.Counterpart{}, false},
	}
	for _, c := range cases {
		s := &atesor.State{RunPart: atesor.RunPart{Platform: c.platform, Request: c.req}}
		got, ok := counterpart(s)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: counterpart = %+v, %v, want %+v, %v", c.name, got, ok, c.want, c.ok)
		}
		f := failureOf(s, &atesor.ErrorRecord{Message: "error"}, "")
		if f.Packaged != c.ok {
			t.Errorf("%s: Failure.Packaged = %v", c.name, f.Packaged)
		}
		if r := (&run{p: &Pipeline{}}); (r.distribution(s) != nil) != c.ok {
			t.Errorf("%s: distribution func present = %v", c.name, !c.ok)
		}
	}
}

// TestDistCacheLooksUpOnce: a package's packaging is read once per pipeline; a lookup
// cut short by a cancelled context is not remembered.
func TestDistCacheLooksUpOnce(t *testing.T) {
	var c distCache
	loads := 0
	key := debsrc.Counterpart{Package: "spdlog", Version: "1.15.2+ds", Suite: "trixie"}
	load := func(ctx context.Context) (*repair.Distribution, error) {
		loads++
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return &repair.Distribution{Package: "spdlog"}, nil
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.lookup(cancelled, key, load); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled lookup: %v", err)
	}
	for range 2 {
		if d, err := c.lookup(context.Background(), key, load); err != nil || d.Package != "spdlog" {
			t.Fatalf("lookup: %+v, %v", d, err)
		}
	}
	if loads != 2 {
		t.Errorf("%d loads, want 2 (the cancelled one and one more)", loads)
	}
}
