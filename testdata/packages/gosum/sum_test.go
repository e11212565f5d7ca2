package main

import "testing"

func TestSum(t *testing.T) {
	for _, tt := range []struct {
		xs   []uint64
		want uint64
	}{{nil, 0}, {[]uint64{1}, 1}, {[]uint64{1, 2, 3, 40}, 46}, {[]uint64{1<<64 - 1, 2}, 1}} {
		if got := sum(tt.xs); got != tt.want {
			t.Errorf("sum(%v) = %d, want %d", tt.xs, got, tt.want)
		}
	}
}
