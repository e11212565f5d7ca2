package verify

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go"
)

// onigRules is shaped like oniguruma's debian/rules: the POSIX API is a configure
// switch upstream leaves off.
const onigRules = `#!/usr/bin/make -f
export DEB_BUILD_MAINT_OPTIONS = hardening=+all
CONFIGURE_FLAGS = --enable-posix-api --disable-static --with-rubydir=no

%:
	dh $@

override_dh_auto_configure:
	dh_auto_configure -- $(CONFIGURE_FLAGS) --enable-crnl-as-line-terminator
`

// TestDistributionOnlyNamesTheSwitch: a function Debian's build exports and this one
// does not is explained by the switch of Debian's packaging that enables it, and is
// still no hollowing finding.
func TestDistributionOnlyNamesTheSwitch(t *testing.T) {
	ec := &atesor.ExportCheck{Distribution: "libonig5 6.9.9-1 (Debian riscv64, symbols file)", MissingDistribution: []string{"regcomp", "onig_new"}}
	distributionSwitches(context.Background(), func(context.Context) (string, error) { return onigRules, nil }, ec)
	wantSwitches := []string{"--enable-posix-api", "--disable-static", "--with-rubydir=no", "--enable-crnl-as-line-terminator"}
	if !slices.Equal(ec.DistributionSwitches, wantSwitches) {
		t.Fatalf("switches %q, want %q", ec.DistributionSwitches, wantSwitches)
	}
	in := explainInput{
		missing:  []string{"regcomp", "onig_other"},
		declared: map[string]bool{},
		sources: index(map[string]string{
			"src/regposix.c": "int regcomp(onig_posix_regex_t *reg, const char *pattern, int cflags)\n{\n\treturn 0;\n}\n",
		}),
		dist:     ec.Distribution,
		switches: ec.DistributionSwitches,
	}
	got := explainMissing(in)
	if len(got) != 2 {
		t.Fatalf("explained %+v", got)
	}
	posix := got[0]
	if posix.Finding != atesor.FindingDistributionOnly || !slices.Equal(posix.Switches, []string{"--enable-posix-api"}) ||
		!strings.Contains(posix.Reason, "Debian configures with `--enable-posix-api`") || !strings.Contains(posix.Reason, "src/regposix.c") {
		t.Errorf("regcomp: %+v", posix)
	}
	// No switch's word appears in the name or its files: every enabling switch is named
	// as a difference to look at.
	other := got[1]
	if other.Finding != atesor.FindingDistributionOnly || !slices.Equal(other.Switches, []string{"--enable-posix-api", "--enable-crnl-as-line-terminator"}) ||
		!strings.Contains(other.Reason, "Debian configures with `--enable-posix-api` `--enable-crnl-as-line-terminator`") {
		t.Errorf("onig_other: %+v", other)
	}
	if ev := Evidence(&atesor.ExportCheck{Libraries: []string{"src/.libs/libonig.so"}, Explained: got}, nil, nil); !strings.Contains(ev, "- missing `regcomp` (distribution_only): ") ||
		!strings.Contains(ev, "Debian configures with `--enable-posix-api`") {
		t.Errorf("the recipe's evidence does not name the switch:\n%s", ev)
	}
	if h := (&atesor.ExportCheck{Explained: got}).Hollowed(); len(h) != 0 {
		t.Errorf("hollowed %q: the distribution's switches are evidence, never a veto", h)
	}

	// Without switches that enable something, the reason stays as it was.
	in.switches = []string{"--disable-static", "-DCMAKE_BUILD_TYPE=None"}
	for _, m := range explainMissing(in) {
		if len(m.Switches) > 0 || !strings.HasSuffix(m.Reason, distDiffers) {
			t.Errorf("%s: %+v", m.Name, m)
		}
	}
}

func TestDistributionSwitchesUnreadable(t *testing.T) {
	ec := &atesor.ExportCheck{}
	distributionSwitches(context.Background(), func(context.Context) (string, error) { return "", errors.New("no debian.tar packaging") }, ec)
	if ec.DistributionSwitches != nil || len(ec.Notes) != 1 || !strings.Contains(ec.Notes[0], "configure switches not read: no debian.tar packaging") {
		t.Errorf("check %+v", ec)
	}
}

func TestSwitchWords(t *testing.T) {
	cases := map[string][]string{
		"--enable-posix-api":     {"posix"},
		"-DWITH_TURBOJPEG=ON":    {"turbojpeg"},
		"--with-default-audio=x": {"default", "audio"},
		"-Dzlib=enabled":         {"zlib"},
		"--enable-x":             nil,
	}
	for in, want := range cases {
		if got := switchWords(in); !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
}

// TestExportCheckJSONWithoutSwitches: a check without switches reads and writes as before.
func TestExportCheckJSONWithoutSwitches(t *testing.T) {
	old := `{"libraries":["lib/libx.so"],"defined":3,"declared":2,"explained":[{"name":"f","finding":"distribution_only","reason":"r"}]}`
	var ec atesor.ExportCheck
	if err := json.Unmarshal([]byte(old), &ec); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(&ec)
	if err != nil || string(b) != old {
		t.Errorf("round trip %s, %v", b, err)
	}
}

// TestCheckDistributionByName: an upstream tarball's name and version are looked up
// in Debian's archive; when it has no such package, that is a note, not an error.
func TestCheckDistributionByName(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	ec := &atesor.ExportCheck{}
	in := Input{Source: "/src/libfoo-1.0.tar.gz", Mirror: srv.URL, DistCache: t.TempDir()}
	if d := checkDistribution(context.Background(), nil, in, map[string]bool{"libfoo.so.1": true}, ec, func(string) bool { return true }); d != nil {
		t.Errorf("compared with %+v", d)
	}
	want := []string{"no Debian build of a source package libfoo 1.0 to compare with (looked up by the source's name and version)"}
	if !slices.Equal(ec.Notes, want) {
		t.Errorf("notes %q, want %q", ec.Notes, want)
	}
	// A source that names no release is not looked up.
	ec = &atesor.ExportCheck{}
	in.Source = "/src/libfoo"
	if d := checkDistribution(context.Background(), nil, in, nil, ec, nil); d != nil || len(ec.Notes) != 0 {
		t.Errorf("%+v, notes %q", d, ec.Notes)
	}
}
