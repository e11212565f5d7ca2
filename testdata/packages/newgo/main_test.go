package main

import (
	"slices"
	"testing"
)

func TestSquares(t *testing.T) {
	if got, want := squares(4), []int{1, 4, 9, 16}; !slices.Equal(got, want) {
		t.Fatalf("squares(4) = %v, want %v", got, want)
	}
}
