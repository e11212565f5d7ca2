package main

import (
	"flag"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSharedFlagsMeanTheSame checks that every flag port and batch both have is defined
// once: the same name, default and help text in both, so --force (or any other shared
// flag) cannot mean one thing in port and another in batch.
func TestSharedFlagsMeanTheSame(t *testing.T) {
	var pf portFlags
	var bo batchOptions
	port, batch := portFlagSet(&pf), batchFlagSet(&bo)
	shared := 0
	port.VisitAll(func(p *flag.Flag) {
		b := batch.Lookup(p.Name)
		if b == nil {
			return
		}
		shared++
		if p.Name == "out" {
			return // each command has its own default output directory
		}
		if diff := cmp.Diff(p.Usage+" default="+p.DefValue, b.Usage+" default="+b.DefValue); diff != "" {
			t.Errorf("--%s differs between port and batch (-port +batch):\n%s", p.Name, diff)
		}
	})
	if shared < 10 {
		t.Errorf("port and batch share %d flags, want the ten run flags and --out", shared)
	}
}

// TestBatchFlagsForceAndRerun checks batch's two "again" flags: --force skips the recipe
// cache as in port, --rerun ports finished packages again, and --no-cache (the older
// name) still means --force.
func TestBatchFlagsForceAndRerun(t *testing.T) {
	tests := []struct {
		args         []string
		force, rerun bool
	}{
		{nil, false, false},
		{[]string{"--force"}, true, false},
		{[]string{"--rerun"}, false, true},
		{[]string{"--no-cache"}, true, false},
		{[]string{"--force", "--rerun"}, true, true},
	}
	for _, tt := range tests {
		var o batchOptions
		fs := batchFlagSet(&o)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		if o.f.force != tt.force || o.rerun != tt.rerun {
			t.Errorf("%v: force=%v rerun=%v, want %v %v", tt.args, o.f.force, o.rerun, tt.force, tt.rerun)
		}
	}
}
