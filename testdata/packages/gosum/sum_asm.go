//go:build !purego

package main

// sum returns the sum of xs (sum_amd64.s, sum_arm64.s).
//
//go:noescape
func sum(xs []uint64) uint64
