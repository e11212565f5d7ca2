package atesor

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseCratesMode(t *testing.T) {
	for in, want := range map[string]CratesMode{"": CratesDistribution, "distribution": CratesDistribution,
		" Registry ": CratesRegistry, "auto": CratesAuto} {
		if got, err := ParseCratesMode(in); err != nil || got != want {
			t.Errorf("ParseCratesMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseCratesMode("vendor"); err == nil || !strings.Contains(err.Error(), "distribution, registry or auto") {
		t.Errorf("ParseCratesMode(vendor) = %v, want an error naming the settings", err)
	}
}

// TestCargoDepsJSON: the report's crates field says the way the crates came, and
// leaves out what a registry port does not have.
func TestCargoDepsJSON(t *testing.T) {
	b, err := json.Marshal(CargoDeps{Mode: CratesAuto, Source: CratesRegistry, RegistryError: ""})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != `{"mode":"auto","source":"registry"}` {
		t.Errorf("registry record %s", got)
	}
	d := CargoDeps{Mode: CratesDistribution, Source: CratesDistribution, Packages: []string{"librust-itoa-dev"},
		Config: ".cargo/config.toml", LockfileSetAside: "Cargo.lock.upstream"}
	b, err = json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var back CargoDeps
	if err := json.Unmarshal(b, &back); err != nil || back.String() != d.String() {
		t.Errorf("round trip %s: %+v, %v", b, back, err)
	}
	if !strings.Contains(d.String(), "Cargo.lock set aside as Cargo.lock.upstream") || !strings.Contains(string(b), `"lockfile_set_aside":"Cargo.lock.upstream"`) {
		t.Errorf("record %s, summary %q", b, d.String())
	}
}
