package crates

import (
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// cargoConfig is the part of cargo's config.toml schema (the cargo book's
// "Configuration" chapter) that CargoConfig writes.
type cargoConfig struct {
	Source map[string]struct {
		ReplaceWith string `toml:"replace-with"`
		Directory   string `toml:"directory"`
	} `toml:"source"`
	Net struct {
		Offline bool `toml:"offline"`
	} `toml:"net"`
}

func TestCargoConfig(t *testing.T) {
	for _, dir := range []string{RegistryDir, `/tmp/odd "dir"\with	tab` + "\x01", "/srv/crates é"} {
		text := CargoConfig(dir)
		var c cargoConfig
		dec := toml.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			t.Fatalf("%q: the config does not parse: %v\n%s", dir, err, text)
		}
		if c.Source["crates-io"].ReplaceWith != SourceName || c.Source[SourceName].Directory != dir || !c.Net.Offline {
			t.Errorf("%q: config %+v\n%s", dir, c, text)
		}
		if len(c.Source) != 2 {
			t.Errorf("%q: sources %v", dir, c.Source)
		}
	}
}
