// Command wordfreq prints the most frequent words of its input files (or of standard
// input), counted by one goroutine per file into a shared table.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"unicode"
)

// table is the word counts all goroutines add to.
type table struct {
	mu     sync.Mutex
	counts map[string]int
}

func (t *table) add(r io.Reader) error {
	local := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Split(bufio.ScanWords)
	for sc.Scan() {
		w := strings.ToLower(strings.TrimFunc(sc.Text(), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }))
		if w != "" {
			local[w]++
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for w, n := range local {
		t.counts[w] += n
	}
	return sc.Err()
}

type entry struct {
	word  string
	count int
}

// top returns the n most frequent words, most frequent first, ties in word order.
func (t *table) top(n int) []entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]entry, 0, len(t.counts))
	for w, c := range t.counts {
		out = append(out, entry{w, c})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].count != out[j].count {
			return out[i].count > out[j].count
		}
		return out[i].word < out[j].word
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

func main() {
	n := flag.Int("n", 10, "how many words to print")
	flag.Parse()
	t := &table{counts: map[string]int{}}
	if flag.NArg() == 0 {
		if err := t.add(os.Stdin); err != nil {
			fmt.Fprintln(os.Stderr, "wordfreq:", err)
			os.Exit(1)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, flag.NArg())
	for _, name := range flag.Args() {
		wg.Add(1)
		go func(name string) {
			defer wg.Done()
			f, err := os.Open(name)
			if err != nil {
				errs <- err
				return
			}
			defer f.Close()
			if err := t.add(f); err != nil {
				errs <- fmt.Errorf("%s: %w", name, err)
			}
		}(name)
	}
	wg.Wait()
	close(errs)
	failed := false
	for err := range errs {
		fmt.Fprintln(os.Stderr, "wordfreq:", err)
		failed = true
	}
	for _, e := range t.top(*n) {
		fmt.Printf("%7d %s\n", e.count, e.word)
	}
	if failed {
		os.Exit(1)
	}
}
