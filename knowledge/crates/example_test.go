package crates_test

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/eclipse-atesor/atesor-go/knowledge/crates"
)

func Example() {
	manifest := `[package]
name = "hello"
version = "0.1.0"
rust-version = "1.70"

[dependencies]
itoa = "1.0"
serde = { version = "1.0.100", features = ["derive"] }
rand = "0.9"

[target.'cfg(windows)'.dependencies]
winapi = "0.3"
`
	index := `Package: librust-itoa-dev
Provides: librust-itoa-1-dev (= 1.0.14-1), librust-itoa-1.0.14-dev (= 1.0.14-1), librust-itoa-1.0.14+default-dev (= 1.0.14-1)

Package: librust-serde-dev
Provides: librust-serde-1.0.217-dev (= 1.0.217-1), librust-serde-1.0.217+default-dev (= 1.0.217-1), librust-serde-1.0.217+derive-dev (= 1.0.217-1)

Package: librust-rand-dev
Provides: librust-rand-0.8.5-dev (= 0.8.5-1), librust-rand-0.8.5+default-dev (= 0.8.5-1)
`
	m, err := crates.ReadManifest(func(rel string) ([]byte, error) {
		if rel == "Cargo.toml" {
			return []byte(manifest), nil
		}
		return nil, fs.ErrNotExist
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ix, err := crates.ParseIndex(strings.NewReader(index))
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := ix.Resolve(m, crates.RISCV64, false)
	fmt.Println("rust-version:", m.RustVersion)
	fmt.Println("install:", strings.Join(res.Packages, " "))
	var missing *crates.MissingError
	if errors.As(err, &missing) {
		for _, x := range missing.Missing {
			fmt.Println("missing:", x)
		}
	}
	// Output:
	// rust-version: 1.70
	// install: librust-itoa-dev librust-serde-dev
	// missing: rand 0.9 (normal dependency in Cargo.toml): the distribution has only 0.8.5 (another series: moving to it may need changes to the code)
}
