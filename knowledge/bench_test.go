package knowledge

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// genTree writes a source tree of n files: a CMake project with nested directories of C
// sources and headers, some with guarded SIMD code, a few build files and a README.
func genTree(tb testing.TB, n int) string {
	tb.Helper()
	files := map[string]string{
		"CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(big C)\nfind_package(ZLIB REQUIRED)\n",
		"README.md":      "# big\nA generated tree.\n",
		"Makefile":       "all:\n\tcmake -S . -B build\n",
	}
	for i := len(files); i < n; i++ {
		dir := fmt.Sprintf("src/mod%02d/sub%02d", i%40, (i/40)%10)
		switch i % 10 {
		case 0:
			files[fmt.Sprintf("%s/simd%d.c", dir, i)] = "#if defined(__x86_64__)\n#include <immintrin.h>\nint f(void){ return _mm_cvtsi128_si32(_mm_setzero_si128()); }\n#else\nint f(void){ return 0; }\n#endif\n"
		case 1:
			files[fmt.Sprintf("%s/h%d.h", dir, i)] = "#pragma once\nint g(int);\n"
		default:
			files[fmt.Sprintf("%s/f%d.c", dir, i)] = fmt.Sprintf("#include <stdio.h>\nint f%d(int x) {\n  /* plain code */\n  return x * %d;\n}\n", i, i)
		}
	}
	return writeTree(tb, files)
}

func BenchmarkDetect2000Files(b *testing.B) {
	dir := genTree(b, 2000)
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		if _, err := Detect(ctx, dir); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDetectLargeTreeFast keeps the benchmark's promise in the unit suite: a 2,000-file
// tree is detected well under a second (the bound is generous for slow CI machines and
// the race detector).
func TestDetectLargeTreeFast(t *testing.T) {
	if testing.Short() {
		t.Skip("writing 2,000 files is slow on some file systems")
	}
	dir := genTree(t, 2000)
	// The bound is a ratio to reading the same tree, measured in the same run, so a busy
	// machine slows both sides alike: detection is a scan of the files, not a search.
	readStart := time.Now()
	if err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			_, err = os.ReadFile(p)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	read := time.Since(readStart)
	start := time.Now()
	d, err := Detect(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	el := time.Since(start)
	t.Logf("reading the tree: %v; Detect: %v (%.1f×)", read, el, float64(el)/float64(read))
	if el > 3*time.Second && el > 40*read {
		t.Errorf("Detect of 2000 files took %v, %.0f× reading them (%v)", el, float64(el)/float64(read), read)
	}
	if d.BuildSystem != "cmake" || len(d.ArchFindings) == 0 {
		t.Errorf("unexpected detection: %s, %d findings", d.BuildSystem, len(d.ArchFindings))
	}
	for _, f := range d.ArchFindings {
		if !f.Guarded {
			t.Errorf("guarded code reported unguarded: %+v", f)
			break
		}
	}
}
