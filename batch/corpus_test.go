package batch

import (
	"bufio"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// corpusFile is the public corpus, relative to this package.
const corpusFile = "../testdata/corpus/trixie.txt"

// corpusTags are the words a corpus line's trailing comment may use: one build system,
// then languages, then kinds, each list comma-separated.
var corpusTags = []map[string]bool{
	{"autotools": true, "cmake": true, "meson": true, "make": true, "go": true},
	{"c": true, "c++": true, "go": true},
	{"library": true, "program": true},
}

// testSourceRE finds the Debian packages and sample sources tests port: debian:NAME
// sources, the pkg fields and SourceTarball calls of the tests that fetch real
// packages from the archive.
var testSourceRE = regexp.MustCompile(`debian:([a-z0-9][a-z0-9+.-]+)|pkg:\s*"([^"]+)"|SourceTarball\(t,\s*"([^"]+)"`)

// TestCorpus checks the corpus list: it parses, names at least 40 unique Debian
// packages, each with expected artifacts and a comment saying what it stands for,
// together covering every build system, language and kind, and none of them a package
// an end-to-end test or a sample tree already uses (a corpus measures packages nobody
// wrote a rule from).
func TestCorpus(t *testing.T) {
	data, err := os.ReadFile(corpusFile)
	if err != nil {
		t.Fatal(err)
	}
	items, err := ParseList(strings.NewReader(string(data)))
	if err != nil {
		t.Fatalf("%s: %v", corpusFile, err)
	}
	if len(items) < 40 {
		t.Errorf("%s lists %d packages, want at least 40", corpusFile, len(items))
	}
	lines := 0
	for _, it := range items {
		if !strings.HasPrefix(it.Source, "debian:") || strings.Contains(it.Source, "=") {
			t.Errorf("%s: want debian:NAME (the suite's current version), got %s", corpusFile, it.Source)
		}
		if len(it.Expected) == 0 {
			t.Errorf("%s: %s names no expected artifact", corpusFile, it.Name)
		}
	}
	covered := make([]map[string]int, len(corpusTags))
	for i := range covered {
		covered[i] = map[string]int{}
	}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		lines++
		_, comment, ok := strings.Cut(line, " #")
		tags := strings.Fields(comment)
		if !ok || len(tags) != len(corpusTags) {
			t.Errorf("line %d: want a trailing comment \"# BUILD-SYSTEM LANGUAGES KINDS\", got %q", n, line)
			continue
		}
		for i, tag := range tags {
			for _, w := range strings.Split(tag, ",") {
				if !corpusTags[i][w] {
					t.Errorf("line %d: %q is not one of %v", n, w, slices.Sorted(maps.Keys(corpusTags[i])))
				}
				covered[i][w]++
			}
		}
	}
	if lines != len(items) {
		t.Errorf("%d package lines but %d unique packages: a package is listed twice", lines, len(items))
	}
	for i, want := range corpusTags {
		for w := range want {
			if covered[i][w] < 3 {
				t.Errorf("%d packages stand for %s, want at least 3", covered[i][w], w)
			}
		}
	}
	used := testSources(t)
	for _, it := range items {
		if where, ok := used[it.Name]; ok {
			t.Errorf("%s is in the corpus and used by %s: pick a package no test ports", it.Name, where)
		}
	}
	t.Logf("%d packages; build systems %v, languages %v, kinds %v", len(items), covered[0], covered[1], covered[2])
}

// testSources maps the Debian package names the module's end-to-end tests port, and
// the names of the sample trees and packages under testdata, to a file using them.
func testSources(t *testing.T) map[string]string {
	t.Helper()
	used := map[string]string{}
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "corpus") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, "_e2e_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range testSourceRE.FindAllStringSubmatch(string(b), -1) {
			used[m[1]+m[2]+m[3]] = p
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(used) == 0 {
		t.Fatal("found no package the end-to-end tests port: is the module layout different?")
	}
	for _, dir := range []string{"../testdata/trees", "../testdata/packages"} {
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if !e.IsDir() {
				continue
			}
			name := strings.ToLower(e.Name())
			used[name] = dir
			if i := strings.LastIndex(name, "-"); i > 0 && strings.IndexAny(name[i:], "0123456789") == 1 {
				used[name[:i]] = dir // pcre2-10.45 is the pcre2 package
			}
		}
	}
	return used
}
