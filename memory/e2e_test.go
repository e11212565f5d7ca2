package memory_test

import (
	"sort"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
	"github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EBundledDebianPackagesExistInTrixie checks every package that an apt-get install
// of a bundled debian-riscv64 example names against Debian trixie's riscv64 index.
func TestE2EBundledDebianPackagesExistInTrixie(t *testing.T) {
	e2e.Short(t)
	want := map[string][]string{} // package -> example ids
	for _, agent := range atesor.Agents() {
		for _, e := range bundledFile(t, agent).Examples {
			if e.Sandbox != debian {
				continue
			}
			for _, c := range exampleCommands(e) {
				for _, p := range installedPackages(c, "apt-get") {
					want[p] = append(want[p], e.ID)
				}
			}
		}
	}
	if len(want) == 0 {
		t.Fatal("no apt-get packages found in the bundled Debian examples")
	}
	index, provided := debiantest.Packages(t, "riscv64")
	var names []string
	for p := range want {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		if !index[p] {
			t.Errorf("package %s (used by %v) is not a real package in trixie/main riscv64%s", p, want[p],
				map[bool]string{true: " (only a virtual name)", false: ""}[provided[p]])
		}
	}
	t.Logf("checked %d packages against the trixie riscv64 index", len(names))
}
