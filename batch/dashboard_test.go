package batch

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// sampleSummary is a summary with every kind of row.
func sampleSummary() *Summary {
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	recs := map[string]Record{
		"zlib":     {Name: "zlib", Dir: "zlib", Status: atesor.StatusVerified, Verified: true, Expected: []string{"libz.so.*"}, Seconds: secs(95), CostUSD: 0, FinishedAt: t0, Origin: &atesor.DistroSource{Distro: "debian", Package: "zlib", Version: "1:1.3.dfsg+really1.3.1-1"}},
		"lz4":      {Name: "lz4", Dir: "lz4", Status: atesor.StatusCached, Verified: true, CacheHit: true, Expected: []string{"liblz4.so.*"}, MissingExpected: []string{"liblz4.so.*"}, Seconds: secs(0.4), FinishedAt: t0},
		"icmpinfo": {Name: "icmpinfo", Dir: "icmpinfo", Status: atesor.StatusEscalated, FailureClass: atesor.FailureBuild, Reason: "redefinition of 'struct ip' <script>alert(1)</script>", Seconds: secs(41), CostUSD: 0.0312, ModelCalls: 3, FinishedAt: t0},
		"nosuch":   {Name: "nosuch", Dir: "nosuch", Status: atesor.StatusFailed, FailureClass: atesor.FailureSetup, Error: "not in the trixie Sources index; did you mean nosh?", Seconds: secs(1), FinishedAt: t0},
	}
	s := Summarize([]string{"zlib", "lz4", "icmpinfo", "nosuch", "xxhash"}, recs)
	s.Shards, s.ElapsedSeconds, s.Interrupted = []string{"0/2", "1/2"}, secs(140), true
	return s
}

func TestDashboardSelfContained(t *testing.T) {
	page, err := Dashboard(sampleSummary())
	if err != nil {
		t.Fatal(err)
	}
	html := string(page)
	for _, want := range []string{`<table id="packages">`, `id="chart-classes"`, `id="chart-status"`, `id="chart-time"`,
		`id="chart-cost"`, `<td><a href="icmpinfo/">icmpinfo</a></td>`, "&lt;script&gt;alert(1)&lt;/script&gt;",
		`data-status="pending"><td>xxhash</td>`, "debian zlib 1:1.3.dfsg&#43;really1.3.1-1", "Interrupted: 1 of 5",
		`<table id="failure-groups">`, "<td>icmpinfo</td></tr>", "<td>all 1</td>", "<td>missing liblz4.so.*</td>"} {
		if !strings.Contains(html, want) {
			t.Errorf("dashboard lacks %q", want)
		}
	}
	// Self-contained: no script, no external resource of any kind.
	for _, re := range []string{`(?i)<script`, `(?i)\bsrc\s*=`, `(?i)<link`, `(?i)@import`, `(?i)url\(`, `https?://[^"]*"`} {
		for _, m := range regexp.MustCompile(re).FindAllString(html, -1) {
			if m == `http://www.w3.org/2000/svg"` {
				continue // the SVG namespace is a name, not a resource
			}
			t.Errorf("dashboard loads or runs something: %q", m)
		}
	}
	if strings.Contains(html, "ZgotmplZ") {
		t.Error("the template refused a value (ZgotmplZ)")
	}
}

// chromium finds a Chromium binary: $ATESOR_CHROMIUM, else chromium or
// chromium-browser on PATH.
func chromium() string {
	if p := os.Getenv("ATESOR_CHROMIUM"); p != "" {
		return p
	}
	for _, n := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// artifactsDir is where test artifacts (screenshots) are kept: $ATESOR_TEST_ARTIFACTS,
// else a temporary directory of the test.
func artifactsDir(t *testing.T) string {
	if d := os.Getenv("ATESOR_TEST_ARTIFACTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// TestDashboardInChromium renders the dashboard in headless Chromium (Debian's
// chromium package): the rendered DOM has the table and the four charts, and the
// screenshot shows the charts' bars in their colours. The screenshot is kept as a test
// artifact.
func TestDashboardInChromium(t *testing.T) {
	bin := chromium()
	if bin == "" {
		if e2e.Enabled() {
			t.Fatal("no chromium binary: install Debian's chromium package (apt-get install chromium) or set ATESOR_CHROMIUM")
		}
		t.Skip("no chromium binary: install Debian's chromium package (apt-get install chromium) or set ATESOR_CHROMIUM to run this test")
	}
	dir := t.TempDir()
	if err := WriteSummaries(dir, sampleSummary()); err != nil {
		t.Fatal(err)
	}
	url := "file://" + filepath.Join(dir, DashboardHTML)
	run := func(args ...string) []byte {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
			"--disable-dev-shm-usage", "--user-data-dir=" + t.TempDir(), "--window-size=1400,1600"}
		cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", bin, args, err, stderr.String())
		}
		return out
	}
	dom := string(run("--dump-dom", url))
	if n := strings.Count(dom, "<tr data-status="); n != 5 {
		t.Errorf("the rendered table has %d package rows, want 5", n)
	}
	for _, id := range []string{"chart-classes", "chart-status", "chart-time", "chart-cost"} {
		if !regexp.MustCompile(`<svg id="` + id + `"[^>]*>(.|\n)*?<rect `).MatchString(dom) {
			t.Errorf("the rendered page has no bars in %s", id)
		}
	}
	shot := filepath.Join(artifactsDir(t), "dashboard.png")
	run("--screenshot="+shot, "--hide-scrollbars", url)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", shot, err)
	}
	// Count the pixels of the bar colours: the charts were painted, not just parsed.
	want := map[string]int{}
	for _, c := range []string{"none", "build", "setup"} {
		want[classColor(c)] = 0
	}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			hex := fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, bl>>8)
			if _, ok := want[hex]; ok {
				want[hex]++
			}
		}
	}
	for c, n := range want {
		if n < 200 {
			t.Errorf("the screenshot has %d pixels of bar colour %s, want at least 200", n, c)
		}
	}
	t.Logf("screenshot kept at %s (%dx%d)", shot, b.Dx(), b.Dy())
}

// secs is a number of seconds as the batch files keep them.
func secs(f float64) atesor.Seconds { return atesor.Seconds(f * float64(time.Second)) }
