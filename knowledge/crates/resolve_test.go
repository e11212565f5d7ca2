package crates

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

func readTOML(t *testing.T, files map[string]string) *Manifest {
	t.Helper()
	fsys := fstest.MapFS{}
	for p, s := range files {
		fsys[p] = &fstest.MapFile{Data: []byte(s)}
	}
	m, err := ReadManifestFS(fsys)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestResolve(t *testing.T) {
	ix := excerpt(t)
	tests := []struct {
		name     string
		toml     string
		dev      bool
		packages []string
		crates   []string // name@version=package
		missing  []string // crate[/feature]:kind[:lock]
		fatal    []string
	}{
		{
			name:     "plain",
			toml:     "[dependencies]\nitoa = \"1.0\"\nmd-5 = \"0.10\"\n",
			packages: []string{"librust-itoa-dev", "librust-md-5-dev"},
			crates:   []string{"itoa@1.0.14=librust-itoa-dev", "md-5@0.10.6=librust-md-5-dev"},
		},
		{
			name:     "features and their packages",
			toml:     "[dependencies]\nrand_core = { version = \"0.6\", default-features = false, features = [\"std\"] }\nserde = { version = \"1\", features = [\"derive\"] }\n",
			packages: []string{"librust-rand-core+std-dev", "librust-rand-core-dev", "librust-serde-dev"},
			crates:   []string{"rand_core@0.6.4=librust-rand-core-dev", "serde@1.0.217=librust-serde-dev"},
		},
		{
			name:     "the older major",
			toml:     "[dependencies]\nsyn = { version = \"1.0.60\", features = [\"full\"] }\nclap = \"2\"\nunicode-width = \"=0.1.14\"\n",
			packages: []string{"librust-clap-2-dev", "librust-syn-1-dev", "librust-unicode-width-0.1-dev"},
			crates:   []string{"clap@2.34.0=librust-clap-2-dev", "syn@1.0.109=librust-syn-1-dev", "unicode-width@0.1.14=librust-unicode-width-0.1-dev"},
		},
		{
			name:     "renamed",
			toml:     "[dependencies]\nrand08 = { package = \"rand\", version = \"0.8\" }\n",
			packages: []string{"librust-rand-dev"},
			crates:   []string{"rand@0.8.5=librust-rand-dev"},
		},
		{
			name:     "another major, not packaged, a missing feature",
			toml:     "[dependencies]\nitoa = \"2\"\nnot-packaged = \"1\"\nserde = { version = \"1\", features = [\"nonesuch\"] }\n[build-dependencies]\nsyn = \"3\"\n",
			fatal:    []string{"itoa:normal", "not-packaged:normal", "serde/nonesuch:normal", "syn:build"},
			packages: []string{"librust-serde-dev"},
			crates:   []string{"serde@1.0.217=librust-serde-dev"},
		},
		{
			name:     "dev dependencies only when asked",
			toml:     "[dev-dependencies]\nitoa = \"1\"\nproptest = \"1\"\n",
			packages: []string{"librust-itoa-dev"},
			missing:  []string{"proptest:dev:lock"},
		},
		{
			name:     "dev dependencies asked",
			toml:     "[dev-dependencies]\nitoa = \"1\"\nproptest = \"1\"\n",
			dev:      true,
			packages: []string{"librust-itoa-dev"},
			crates:   []string{"itoa@1.0.14=librust-itoa-dev"},
			missing:  []string{"proptest:dev"},
		},
		{
			name: "targets",
			toml: "[target.'cfg(unix)'.dependencies]\nlibc = \"0.2\"\n[target.'cfg(windows)'.dependencies]\nwindows-sys = \"0.59\"\nmd-5 = \"0.10\"\n" +
				"[target.riscv64gc-unknown-linux-gnu.dependencies]\nitoa = \"1\"\n",
			packages: []string{"librust-itoa-dev", "librust-libc-dev", "librust-md-5-dev"},
			crates:   []string{"libc@0.2.169=librust-libc-dev", "itoa@1.0.14=librust-itoa-dev"},
			missing:  []string{"windows-sys:normal:lock"},
		},
		{
			name: "optional dependencies follow the features",
			toml: "[features]\ndefault = [\"fmt\"]\nfmt = [\"dep:itoa\", \"syn?/full\"]\nparse = [\"syn\"]\nold = [\"dep:unknown-crate\"]\n" +
				"[dependencies]\nitoa = { version = \"1\", optional = true }\nsyn = { version = \"2\", optional = true }\nunknown-crate = { version = \"1\", optional = true }\n",
			packages: []string{"librust-itoa-dev", "librust-syn-dev"},
			crates:   []string{"itoa@1.0.14=librust-itoa-dev"},
			missing:  []string{"unknown-crate:normal:lock"},
		},
		{
			name:    "git",
			toml:    "[dependencies]\nfoo = { git = \"https://example.invalid/foo\" }\n[dev-dependencies]\nbar = { git = \"https://example.invalid/bar\" }\n",
			fatal:   []string{"foo:normal"},
			missing: []string{"bar:dev:lock"},
		},
	}
	for _, tt := range tests {
		m := readTOML(t, map[string]string{"Cargo.toml": "[package]\nname = \"p\"\n" + tt.toml})
		res, err := ix.Resolve(m, RISCV64, tt.dev)
		var me *MissingError
		if len(tt.fatal) > 0 {
			if !errors.As(err, &me) {
				t.Fatalf("%s: error %v, want a *MissingError", tt.name, err)
			}
			if got := missingKeys(me.Missing); !slices.Equal(got, tt.fatal) {
				t.Errorf("%s: fatal %v, want %v", tt.name, got, tt.fatal)
			}
		} else if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !slices.Equal(res.Packages, tt.packages) {
			t.Errorf("%s: packages %v, want %v", tt.name, res.Packages, tt.packages)
		}
		var crates []string
		for _, c := range res.Crates {
			crates = append(crates, c.Name+"@"+c.Version+"="+c.Package)
		}
		if !slices.Equal(crates, tt.crates) {
			t.Errorf("%s: crates %v, want %v", tt.name, crates, tt.crates)
		}
		if got := missingKeys(res.Missing); !slices.Equal(got, tt.missing) {
			t.Errorf("%s: missing %v, want %v", tt.name, got, tt.missing)
		}
	}
}

func missingKeys(ms []Missing) []string {
	var out []string
	for _, m := range ms {
		k := m.Crate
		if m.Feature != "" {
			k += "/" + m.Feature
		}
		k += ":" + m.Kind
		if m.LockOnly {
			k += ":lock"
		}
		out = append(out, k)
	}
	return out
}

func TestMissingErrorMessage(t *testing.T) {
	ix := excerpt(t)
	m := readTOML(t, map[string]string{
		"Cargo.toml":     "[workspace]\nmembers = [\"app\"]\n",
		"app/Cargo.toml": "[package]\nname = \"app\"\n[dependencies]\nitoa = \"2.0\"\n",
	})
	_, err := ix.Resolve(m, RISCV64, false)
	var me *MissingError
	if !errors.As(err, &me) || len(me.Missing) != 1 {
		t.Fatalf("error %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"itoa 2.0", "app/Cargo.toml", "the distribution has only 1.0.14", "relax the requirement", "vendor the crate", "registry reachable"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the message lacks %q:\n%s", want, msg)
		}
	}
	if got := me.Missing[0]; got.Crate != "itoa" || got.Req != "2.0" || got.Manifest != "app/Cargo.toml" || !slices.Equal(got.Available, []string{"1.0.14"}) {
		t.Errorf("missing = %+v", got)
	}
	for _, tt := range []struct {
		req       string
		available []string
		want      string
	}{
		{"0.2.3", []string{"0.2.1"}, `0.2.1 is of the same series: the requirement relaxed to "0.2.1" accepts it`},
		{"=0.1.12", []string{"0.2.0", "0.1.14"}, `0.1.14 is of the same series`},
		{"1.0.70", []string{"1.0.50"}, `1.0.50 is of the same series`},
		{"^1.5", []string{"1.2.0"}, `1.2.0 is of the same series`},
		{"2", []string{"1.0.14"}, "another series"},
		{"0.9", []string{"0.8.5"}, "another series"},
	} {
		s := Missing{Crate: "c", Req: tt.req, Kind: KindNormal, Manifest: "Cargo.toml", Available: tt.available}.String()
		if !strings.Contains(s, tt.want) {
			t.Errorf("%q with %v: %s", tt.req, tt.available, s)
		}
	}
	none := (&MissingError{Missing: []Missing{{Crate: "a", Kind: KindNormal, Manifest: "Cargo.toml"}, {Crate: "b", Req: "1", Kind: KindBuild, Manifest: "Cargo.toml"}}}).Error()
	if !strings.Contains(none, "2 dependencies") || !strings.Contains(none, "a * (normal") || !strings.Contains(none, "does not package it at all") {
		t.Errorf("message:\n%s", none)
	}
}

func TestMissingQuotesUnprintable(t *testing.T) {
	m := readTOML(t, map[string]string{"Cargo.toml": "[package]\nname = \"p\"\n[dependencies]\nserde = { version = \"1\", features = [\"x\\u001b[31m\"] }\n" +
		"[target.\"cfg(target_os = \\\"\\u001b]0;owned\\u0007\\\")\".dependencies]\nnope = \"1\"\n" +
		"[dev-dependencies]\ng = { git = \"https://x.invalid/\\u001b[2J\" }\n"})
	res, err := excerpt(t).Resolve(m, RISCV64, true)
	var me *MissingError
	if !errors.As(err, &me) {
		t.Fatalf("error %v", err)
	}
	all := err.Error()
	for _, x := range res.Missing {
		all += "\n" + x.String()
	}
	if strings.ContainsAny(all, "\x1b\x07") {
		t.Errorf("a control character reached the message:\n%q", all)
	}
	if !strings.Contains(all, `\x1b[31m`) || !strings.Contains(all, `\x1b[2J`) || !strings.Contains(all, `\x1b]0;owned\a`) {
		t.Errorf("the names are not quoted:\n%s", all)
	}
	for _, bad := range []string{
		"[package]\nname = \"../x\"\n",
		"[package]\nname = \"p\"\n[[bin]]\nname = \"../../bin/sh\"\n",
		"[package]\nname = \"p\"\n[dependencies]\n\"a/b\" = \"1\"\n",
		"[package]\nname = \"p\"\n[dependencies]\na = { package = \"x\\ny\", version = \"1\" }\n",
	} {
		if _, err := ReadManifestFS(fstest.MapFS{"Cargo.toml": {Data: []byte(bad)}}); err == nil || !strings.Contains(err.Error(), "not a valid") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	// A program file whose name cargo refuses is no program.
	m = readTOML(t, map[string]string{"Cargo.toml": "[package]\nname = \"p\"\n", "src/bin/ok.rs": "", "src/bin/a b.rs": "", "src/bin/.rs": ""})
	if !slices.Equal(m.Binaries, []string{"ok"}) {
		t.Errorf("binaries %q", m.Binaries)
	}
}

func TestResolveHandMade(t *testing.T) {
	ix := excerpt(t)
	m := &Manifest{Dependencies: []Dependency{
		{Name: "itoa", Req: "1", DefaultFeatures: true, Kind: KindNormal, Manifest: "Cargo.toml"},
		{Name: "serde", Req: "1", Optional: true, Kind: KindNormal, Manifest: "Cargo.toml"},
		{Name: "libc", Req: "0.2", Kind: KindNormal, Target: "cfg(unix)", Manifest: "Cargo.toml"},
	}}
	res, err := ix.Resolve(m, RISCV64, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"librust-itoa-dev", "librust-libc-dev"}; !slices.Equal(res.Packages, want) {
		t.Errorf("packages %v, want %v", res.Packages, want)
	}
	bad := &Manifest{Dependencies: []Dependency{{Name: "itoa", Req: ">>1", Kind: KindNormal, Manifest: "Cargo.toml"}}}
	if _, err := ix.Resolve(bad, RISCV64, false); err == nil || !strings.Contains(err.Error(), "itoa") {
		t.Errorf("a bad requirement: %v", err)
	}
	badCfg := &Manifest{Dependencies: []Dependency{{Name: "itoa", Kind: KindNormal, Target: "cfg(unix", Manifest: "Cargo.toml"}}}
	if _, err := ix.Resolve(badCfg, RISCV64, false); err == nil {
		t.Error("a malformed cfg resolves")
	}
}
