package main

import (
	"strings"
	"sync"
	"testing"
)

func TestConcurrentAdd(t *testing.T) {
	tb := &table{counts: map[string]int{}}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := tb.add(strings.NewReader("the cat and The dog, and the bird.")); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	got := tb.top(2)
	if len(got) != 2 || got[0] != (entry{"the", 24}) || got[1] != (entry{"and", 16}) {
		t.Errorf("top(2) = %v", got)
	}
}
