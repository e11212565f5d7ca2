// The end-to-end tests live in an external test package: they use internal/debiantest
// and sandbox, which both import knowledge.
package knowledge_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go/internal/archive"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
	"github.com/eclipse-atesor/atesor-go/knowledge"
)

// e2e skips a test unless ATESOR_E2E=1.
func e2e(t *testing.T) {
	t.Helper()
	tier.Short(t)
}

func TestE2EDetectUpstreamTarballs(t *testing.T) {
	e2e(t)
	tests := []struct {
		pkg, file string
		want      atesor.Detection
	}{
		{"zlib", "zlib_1.3.dfsg+really1.3.1.orig.tar.gz", atesor.Detection{
			BuildSystem: atesor.BuildMake, Confidence: 0.9, Evidence: "configure", ShippedConfigure: true, Language: "C",
			Dependencies: []atesor.Dependency{}}},
		{"lz4", "lz4_1.10.0.orig.tar.gz", atesor.Detection{
			BuildSystem: atesor.BuildMake, Confidence: 0.9, Evidence: "Makefile", Language: "C",
			Dependencies: []atesor.Dependency{}}},
	}
	// The fields a detection of a real tarball is compared on; test targets, findings and
	// alternatives are checked below or depend on details of the upstream tree.
	ignore := cmpopts.IgnoreFields(atesor.Detection{}, "TestTargets", "ArchFindings", "Alternatives")
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			// archive.Extract strips the tarball's single top-level directory.
			root := t.TempDir()
			if err := archive.Extract(t.Context(), debiantest.SourceTarball(t, tt.pkg, tt.file), root, archive.DefaultLimits()); err != nil {
				t.Fatal(err)
			}
			det, err := knowledge.Detect(context.Background(), root)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, *det, ignore); d != "" {
				t.Errorf("Detect(%s) (-want +got):\n%s", tt.file, d)
			}
			t.Logf("%s:\n%s", tt.file, knowledge.DetectionSummary(det))
			// Both libraries build on riscv64 as they are: nothing may be reported as a
			// high or critical porting problem.
			for _, f := range det.ArchFindings {
				if f.Severity == atesor.SeverityHigh || f.Severity == atesor.SeverityCritical {
					t.Errorf("portable code reported as %s: %+v", f.Severity, f)
				}
			}
			deb, _ := knowledge.Profile("debian")
			plan, tests, err := knowledge.DefaultPlan(det, deb)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("plan %q, tests %q", plan.Commands(), tests)
			if ev := knowledge.Evidence(context.Background(), root); !strings.Contains(ev, "## "+det.Evidence) {
				t.Errorf("evidence bundle lacks %s", det.Evidence)
			}
		})
	}
}

func TestE2EDebianPackagesExist(t *testing.T) {
	e2e(t)
	have, _ := debiantest.Packages(t, "riscv64")
	deb, _ := knowledge.Profile("debian")
	var missing []string
	for canonical, pkg := range deb.Packages {
		if !have[pkg] {
			missing = append(missing, fmt.Sprintf("%s=%s", canonical, pkg))
		}
	}
	for from, to := range deb.Corrections {
		if !have[to] {
			missing = append(missing, fmt.Sprintf("correction %s->%s", from, to))
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		t.Errorf("Debian names not in trixie's riscv64 index: %v", missing)
	}
}
