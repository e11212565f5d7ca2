package crates

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

// fileReader serves one file as Cargo.toml, as a librust package's registry directory
// holds it.
func fileReader(t *testing.T, file string) func(string) ([]byte, error) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return func(rel string) ([]byte, error) {
		if rel == "Cargo.toml" {
			return data, nil
		}
		return nil, fs.ErrNotExist
	}
}

func findDep(m *Manifest, manifest, key, kind, target string) *Dependency {
	for i, d := range m.Dependencies {
		if d.Manifest == manifest && cmpOr(d.Rename, d.Name) == key && d.Kind == kind && d.Target == target {
			return &m.Dependencies[i]
		}
	}
	return nil
}

func TestReadManifestWorkspace(t *testing.T) {
	m, err := ReadManifestFS(os.DirFS("testdata/coreutils-0.0.30"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Members) != 107 || !slices.Contains(m.Members, ".") || !slices.Contains(m.Members, "src/uu/ls") || !slices.Contains(m.Members, "src/uucore") {
		t.Errorf("members = %d %v", len(m.Members), m.Members)
	}
	if m.RustVersion != "1.82.0" || !m.Library || m.Lockfile {
		t.Errorf("rust-version %q, library %v, lockfile %v", m.RustVersion, m.Library, m.Lockfile)
	}
	// cargo build at the root makes the root package's programs only; uudoc needs
	// the uudoc feature, which is not a default.
	if !slices.Equal(m.Binaries, []string{"coreutils"}) {
		t.Errorf("binaries = %v", m.Binaries)
	}
	// clap = { workspace = true, features = ["env"] }: the workspace's version and
	// features, and the member's.
	clap := findDep(m, "src/uu/ls/Cargo.toml", "clap", KindNormal, "")
	if clap == nil || clap.Req != "4.5" || !slices.Equal(clap.Features, []string{"wrap_help", "cargo", "env"}) || !clap.DefaultFeatures {
		t.Errorf("ls's clap = %+v", clap)
	}
	// chrono's workspace entry turns default features off.
	if chrono := findDep(m, "src/uu/ls/Cargo.toml", "chrono", KindNormal, ""); chrono == nil || chrono.DefaultFeatures {
		t.Errorf("ls's chrono = %+v", chrono)
	}
	sel := findDep(m, "src/uu/ls/Cargo.toml", "selinux", KindNormal, "")
	if sel == nil || !sel.Optional {
		t.Fatalf("ls's selinux = %+v", sel)
	}
	// feat_selinux is not a default feature: selinux is off for the build, on for the
	// lock file.
	if m.build[depID(*sel)].on || !m.lock[depID(*sel)].on {
		t.Errorf("selinux: build %v, lock %v", m.build[depID(*sel)], m.lock[depID(*sel)])
	}
	if nix := findDep(m, "Cargo.toml", "nix", KindDev, "cfg(unix)"); nix == nil || !slices.Contains(nix.Features, "signal") {
		t.Errorf("root's cfg(unix) dev nix = %+v", nix)
	}
	// Path dependencies are no Dependencies.
	if d := findDep(m, "Cargo.toml", "uucore", KindNormal, ""); d != nil {
		t.Errorf("the path dependency uucore is a Dependency: %+v", d)
	}
}

func TestReadManifestSinglePackage(t *testing.T) {
	m, err := ReadManifestFS(os.DirFS("testdata/git-delta-0.18.2"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Members, []string{"."}) || !slices.Equal(m.Binaries, []string{"delta"}) || m.Library {
		t.Errorf("members %v binaries %v library %v", m.Members, m.Binaries, m.Library)
	}
	bat := findDep(m, "Cargo.toml", "bat", KindNormal, "")
	if bat == nil || bat.Req != "0.24.0" || bat.DefaultFeatures || !slices.Equal(bat.Features, []string{"minimal-application", "paging", "regex-onig"}) {
		t.Errorf("bat = %+v", bat)
	}
	if w := findDep(m, "Cargo.toml", "unicode-width", KindNormal, ""); w == nil || w.Req != "=0.1.12" {
		t.Errorf("unicode-width = %+v", w)
	}
	if insta := findDep(m, "Cargo.toml", "insta", KindDev, ""); insta == nil || insta.Req != "1.*" {
		t.Errorf("insta = %+v", insta)
	}
}

func TestReadManifestRegistryCrates(t *testing.T) {
	m, err := ReadManifest(fileReader(t, "testdata/registry/reqwest-0.12.15.Cargo.toml"))
	if err != nil {
		t.Fatal(err)
	}
	const nonWasm = `cfg(not(target_arch = "wasm32"))`
	cookie := findDep(m, "Cargo.toml", "cookie_crate", KindNormal, nonWasm)
	if cookie == nil || cookie.Name != "cookie" || cookie.Rename != "cookie_crate" || !cookie.Optional || cookie.Req != "0.18.0" {
		t.Fatalf("cookie_crate = %+v", cookie)
	}
	// default turns on charset = ["dep:encoding_rs"]; cookies is not a default.
	enc := findDep(m, "Cargo.toml", "encoding_rs", KindNormal, nonWasm)
	if enc == nil || !m.build[depID(*enc)].on {
		t.Errorf("encoding_rs = %+v, %+v", enc, m.build[depID(*enc)])
	}
	if m.build[depID(*cookie)].on || !m.lock[depID(*cookie)].on {
		t.Errorf("cookie_crate build %v lock %v", m.build[depID(*cookie)], m.lock[depID(*cookie)])
	}
	// brotli = ["dep:async-compression", "async-compression?/brotli", ...]: with every
	// feature on, async-compression gets its brotli feature.
	ac := findDep(m, "Cargo.toml", "async-compression", KindNormal, nonWasm)
	if ac == nil || !slices.Contains(m.lock[depID(*ac)].extra, "brotli") || m.build[depID(*ac)].on {
		t.Errorf("async-compression = %+v, build %v, lock %v", ac, m.build[depID(*ac)], m.lock[depID(*ac)])
	}
	if !m.Library || len(m.Binaries) != 0 {
		t.Errorf("library %v binaries %v", m.Library, m.Binaries)
	}

	m, err = ReadManifest(fileReader(t, "testdata/registry/serde-1.0.217.Cargo.toml"))
	if err != nil {
		t.Fatal(err)
	}
	sd := findDep(m, "Cargo.toml", "serde_derive", KindNormal, "")
	if sd == nil || !sd.Optional || m.build[depID(*sd)].on || !m.lock[depID(*sd)].on {
		t.Errorf("serde_derive = %+v", sd)
	}
	if d := findDep(m, "Cargo.toml", "serde_derive", KindNormal, "cfg(any())"); d == nil || d.Req != "=1.0.217" {
		t.Errorf("cfg(any()) serde_derive = %+v", d)
	}
	if m.RustVersion != "1.31" {
		t.Errorf("rust-version %q", m.RustVersion)
	}

	m, err = ReadManifest(fileReader(t, "testdata/registry/tokio-1.43.1.Cargo.toml"))
	if err != nil {
		t.Fatal(err)
	}
	// net = ["libc", "mio/os-poll", ...]: no default feature turns it on, every
	// feature does.
	libc := findDep(m, "Cargo.toml", "libc", KindNormal, "cfg(unix)")
	if libc == nil || !libc.Optional || m.build[depID(*libc)].on || !m.lock[depID(*libc)].on {
		t.Errorf("tokio's cfg(unix) libc = %+v", libc)
	}
	mio := findDep(m, "Cargo.toml", "mio", KindNormal, "")
	if mio == nil || !slices.Contains(m.lock[depID(*mio)].extra, "os-poll") || len(m.build[depID(*mio)].extra) != 0 {
		t.Errorf("tokio's mio = %+v, lock %+v", mio, m.lock[depID(*mio)])
	}
	if d := findDep(m, "Cargo.toml", "tracing", KindNormal, "cfg(tokio_unstable)"); d == nil {
		t.Error("tokio's cfg(tokio_unstable) tracing is missing")
	}

	m, err = ReadManifest(fileReader(t, "testdata/registry/clap-4.5.23.Cargo.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Binaries, []string{"stdio-fixture"}) || !m.Library {
		t.Errorf("clap: binaries %v library %v", m.Binaries, m.Library)
	}
}

func TestReadManifestTree(t *testing.T) {
	fsys := fstest.MapFS{
		"Cargo.toml": {Data: []byte(`
[workspace]
members = ["crates/*", "tools/gen"]
exclude = ["crates/old"]
[workspace.package]
rust-version = "1.74"
[workspace.dependencies]
itoa = "1.0"
serde = { version = "1.0.100", default-features = false, features = ["alloc"] }
local = { path = "crates/local" }
`)},
		"Cargo.lock": {Data: []byte("# lock\n")},
		"crates/app/Cargo.toml": {Data: []byte(`[package]
name = "app"
rust-version.workspace = true
[[bin]]
name = "app-cli"
path = "src/cli.rs"
required-features = ["fast", "local/extra"]
[[bin]]
name = "app-json"
path = "src/json.rs"
required-features = ["json"]
[features]
default = ["fast"]
fast = ["dep:memchr", "local/extra"]
json = ["serde_json"]
[dependencies]
itoa.workspace = true
serde = { workspace = true, features = ["derive"] }
local = { workspace = true }
memchr = { version = "2", optional = true }
serde_json = { version = "1", optional = true }
upstream = { git = "https://example.invalid/upstream.git" }
[target.x86_64-pc-windows-msvc.dependencies]
winapi = "0.3"
`)},
		"crates/app/src/main.rs":          {Data: []byte("fn main() {}\n")},
		"crates/app/src/bin/extra.rs":     {Data: []byte("fn main() {}\n")},
		"crates/app/src/bin/tool/main.rs": {Data: []byte("fn main() {}\n")},
		"crates/local/Cargo.toml": {Data: []byte(`[package]
name = "local"
rust-version = "1.80.1"
[features]
extra = ["dep:smallvec"]
[dependencies]
smallvec = { version = "1.6", optional = true }
[dev-dependencies]
proptest = "1"
`)},
		"crates/local/src/lib.rs": {Data: []byte("\n")},
		"crates/old/Cargo.toml":   {Data: []byte("this is not TOML [")},
		"crates/notes/README":     {Data: []byte("no manifest here\n")},
		"tools/gen/Cargo.toml": {Data: []byte(`[package]
name = "gen"
autobins = false
[dependencies]
app = { path = "../../crates/app" }
`)},
		"tools/gen/src/main.rs": {Data: []byte("fn main() {}\n")},
	}
	m, err := ReadManifestFS(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"crates/app", "crates/local", "tools/gen"}; !slices.Equal(m.Members, want) {
		t.Errorf("members = %v, want %v", m.Members, want)
	}
	if want := []string{"app", "app-cli", "extra", "tool"}; !slices.Equal(m.Binaries, want) {
		t.Errorf("binaries = %v, want %v", m.Binaries, want)
	}
	if !m.Library || !m.Lockfile || m.RustVersion != "1.80.1" {
		t.Errorf("library %v lockfile %v rust-version %q", m.Library, m.Lockfile, m.RustVersion)
	}
	serde := findDep(m, "crates/app/Cargo.toml", "serde", KindNormal, "")
	if serde == nil || serde.DefaultFeatures || !slices.Equal(serde.Features, []string{"alloc", "derive"}) || serde.Req != "1.0.100" {
		t.Errorf("serde = %+v", serde)
	}
	// fast (a default) turns on memchr and local's extra, which turns on smallvec.
	for _, c := range []struct{ manifest, key string }{{"crates/app/Cargo.toml", "memchr"}, {"crates/local/Cargo.toml", "smallvec"}} {
		d := findDep(m, c.manifest, c.key, KindNormal, "")
		if d == nil || !m.build[depID(*d)].on {
			t.Errorf("%s %s is not on: %+v", c.manifest, c.key, d)
		}
	}
	if d := findDep(m, "crates/app/Cargo.toml", "serde_json", KindNormal, ""); d == nil || m.build[depID(*d)].on || !m.lock[depID(*d)].on {
		t.Errorf("serde_json (feature json, not a default) = %+v", d)
	}
	if d := findDep(m, "crates/local/Cargo.toml", "proptest", KindDev, ""); d == nil {
		t.Error("a member's dev dependency is missing")
	}
	if len(m.Git) != 1 || m.Git[0].Name != "upstream" || m.Git[0].URL != "https://example.invalid/upstream.git" {
		t.Errorf("git = %+v", m.Git)
	}
	if d := findDep(m, "crates/app/Cargo.toml", "winapi", KindNormal, "x86_64-pc-windows-msvc"); d == nil {
		t.Error("a triple's target table is missing")
	}

	// Without a directory listing, a member glob is an error that says what to do.
	read := func(rel string) ([]byte, error) { return fs.ReadFile(fsys, rel) }
	if _, err := ReadManifest(read); err == nil || !strings.Contains(err.Error(), "ReadManifestFS") {
		t.Errorf("glob through ReadManifest: %v", err)
	}
}

func TestReadManifestRefuses(t *testing.T) {
	tests := map[string]struct {
		files map[string]string
		want  string
	}{
		"no manifest":    {map[string]string{}, "read Cargo.toml"},
		"not TOML":       {map[string]string{"Cargo.toml": "[package\nname = 1"}, "not valid TOML"},
		"no package":     {map[string]string{"Cargo.toml": "[dependencies]\nitoa = \"1\"\n"}, "neither [package] nor [workspace]"},
		"unnamed":        {map[string]string{"Cargo.toml": "[package]\nversion = \"1.0.0\"\n"}, "names no package"},
		"path outside":   {map[string]string{"Cargo.toml": "[package]\nname = \"a\"\n[dependencies]\nb = { path = \"../b\" }\n"}, "outside the package root"},
		"absolute path":  {map[string]string{"Cargo.toml": "[package]\nname = \"a\"\n[dependencies]\nb = { path = \"/etc\" }\n"}, "outside the package root"},
		"member outside": {map[string]string{"Cargo.toml": "[workspace]\nmembers = [\"../x\"]\n"}, "outside the package root"},
		"not inherited":  {map[string]string{"Cargo.toml": "[package]\nname = \"a\"\n[dependencies]\nb = { workspace = true }\n"}, "does not list it"},
		"bad dependency": {map[string]string{"Cargo.toml": "[package]\nname = \"a\"\n[dependencies]\nb = 3\n"}, "neither a version nor a table"},
		"missing member": {map[string]string{"Cargo.toml": "[workspace]\nmembers = [\"gone\"]\n"}, "read gone/Cargo.toml"},
		"deep":           {map[string]string{"Cargo.toml": "[package]\nname = \"a\"\nx = " + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "\n"}, "nests"},
		"huge":           {map[string]string{"Cargo.toml": "[package]\nname = \"a\"\n#" + strings.Repeat("x", MaxManifestSize)}, "more than"},
		"missing path":   {map[string]string{"Cargo.toml": "[package]\nname = \"a\"\n[dependencies]\nb = { path = \"b\" }\n"}, "path dependency b"},
	}
	for name, tt := range tests {
		fsys := fstest.MapFS{}
		for p, s := range tt.files {
			fsys[p] = &fstest.MapFile{Data: []byte(s)}
		}
		_, err := ReadManifestFS(fsys)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one saying %q", name, err, tt.want)
		}
	}
}

func TestReadManifestHostileFeatures(t *testing.T) {
	// A chain of 3000 features, a cycle, and a feature naming an unknown dependency:
	// activation ends and turns on what the chain reaches.
	var b strings.Builder
	b.WriteString("[package]\nname = \"h\"\n[features]\ndefault = [\"f0\"]\n")
	for i := 0; i < 3000; i++ {
		b.WriteString("f" + strconv.Itoa(i) + " = [\"f" + strconv.Itoa(i+1) + "\"]\n")
	}
	b.WriteString("f3000 = [\"dep:x\", \"ghost/feat\", \"cyc\"]\ncyc = [\"f0\", \"cyc\"]\n[dependencies]\nx = { version = \"1\", optional = true }\n")
	m := readTOML(t, map[string]string{"Cargo.toml": b.String()})
	x := findDep(m, "Cargo.toml", "x", KindNormal, "")
	if x == nil || !m.build[depID(*x)].on {
		t.Errorf("x at the end of the chain is not on: %+v", x)
	}
	// More keys or feature entries than allowed is an error, not a long parse or walk.
	b.Reset()
	b.WriteString("[package]\nname = \"h\"\n[features]\n")
	for i := 0; i < maxKeys; i++ {
		b.WriteString("f" + strconv.Itoa(i) + " = []\n")
	}
	if _, err := ReadManifestFS(fstest.MapFS{"Cargo.toml": {Data: []byte(b.String())}}); err == nil || !strings.Contains(err.Error(), "keys") {
		t.Errorf("too many keys: %v", err)
	}
	b.Reset()
	b.WriteString("[package]\nname = \"h\"\n[features]\nf = [")
	for i := 0; i < maxFeatures; i++ {
		b.WriteString("\"a\",")
	}
	b.WriteString("]\n")
	if _, err := ReadManifestFS(fstest.MapFS{"Cargo.toml": {Data: []byte(b.String())}}); err == nil || !strings.Contains(err.Error(), "feature entries") {
		t.Errorf("too many feature entries: %v", err)
	}
}

func TestReadManifestTreeBudget(t *testing.T) {
	// Many members, each within the bounds of one manifest, exhaust the tree's budget
	// (small here, so the test stays fast); so do vendored crates.
	fsys := fstest.MapFS{"Cargo.toml": {Data: []byte("[workspace]\nmembers = [\"m/*\"]\n")}}
	for i := 0; i < 20; i++ {
		fsys["m/"+strconv.Itoa(i)+"/Cargo.toml"] = &fstest.MapFile{Data: []byte("[package]\nname = \"x\"\n[features]\na = []\nb = []\n")}
	}
	files := func(fsys fstest.MapFS) tree {
		return tree{read: func(rel string) ([]byte, error) { return fs.ReadFile(fsys, rel) }, list: func(dir string) ([]fs.DirEntry, error) { return fs.ReadDir(fsys, dir) }}
	}
	if _, err := readManifestWithin(files(fsys), 1<<20, 50); err == nil || !strings.Contains(err.Error(), "manifests hold more than") {
		t.Errorf("members over the key budget: %v", err)
	}
	if _, err := readManifestWithin(files(fsys), 600, 1000); err == nil || !strings.Contains(err.Error(), "manifests hold more than") {
		t.Errorf("members over the byte budget: %v", err)
	}
	if _, err := readManifestWithin(files(fsys), 1<<20, 1000); err != nil {
		t.Errorf("within the budget: %v", err)
	}
	v := vendoredTree()
	_, rootKeys := shape(v["Cargo.toml"].Data)
	_, configKeys := shape(v[".cargo/config.toml"].Data)
	if _, err := readManifestWithin(files(v), 1<<20, rootKeys+configKeys+1); err == nil || !strings.Contains(err.Error(), "(at vendor/") {
		t.Errorf("vendored crates over the budget: %v", err)
	}
}

func TestReadManifestDefaultMembers(t *testing.T) {
	files := map[string]string{
		"Cargo.toml":   "[workspace]\nmembers = [\"a\", \"b\"]\ndefault-members = [\"a\"]\n",
		"a/Cargo.toml": "[package]\nname = \"a\"\n[dependencies]\nitoa = \"1\"\n",
		"b/Cargo.toml": "[package]\nname = \"b\"\n[dependencies]\nnot-packaged = \"1\"\n",
	}
	m := readTOML(t, files)
	// cargo build compiles a only; b's dependency is only the lock file's.
	res, err := excerpt(t).Resolve(m, RISCV64, false)
	if err != nil {
		t.Fatal(err)
	}
	if keys := missingKeys(res.Missing); !slices.Equal(keys, []string{"not-packaged:normal:lock"}) {
		t.Errorf("missing %v", keys)
	}
	delete(files, "b/Cargo.toml")
	files["Cargo.toml"] = "[workspace]\nmembers = [\"a\"]\n[package]\nname = \"root\"\n[dependencies]\nmd-5 = \"0.10\"\n"
	m = readTOML(t, files)
	if !slices.Equal(m.Members, []string{".", "a"}) || m.built["a/Cargo.toml"] || !m.built["Cargo.toml"] {
		t.Errorf("members %v built %v", m.Members, m.built)
	}
}

func TestReadManifestReadError(t *testing.T) {
	boom := errors.New("boom")
	_, err := ReadManifest(func(string) ([]byte, error) { return nil, boom })
	if !errors.Is(err, boom) {
		t.Errorf("the read error is not wrapped: %v", err)
	}
}

func TestShape(t *testing.T) {
	for s, want := range map[string]int{
		`a = [[1], {b = [2]}]`:          3,
		`a = "[[[[" # [[[[`:             0,
		"a = '''[[[\n[[['''\nb = [1]":   1,
		`a = "\"[[" , b = [1]`:          1,
		`[[bin]]`:                       2,
		"a = \"\"\"x\\\"\"\"[[\"\"\"\n": 0,
	} {
		if got, _ := shape([]byte(s)); got != want {
			t.Errorf("shape(%q) depth %d, want %d", s, got, want)
		}
	}
}

func FuzzReadManifest(f *testing.F) {
	for _, file := range []string{"testdata/registry/serde-1.0.217.Cargo.toml", "testdata/registry/rand-0.8.5.Cargo.toml", "testdata/git-delta-0.18.2/Cargo.toml", "testdata/coreutils-0.0.30/src/uu/ls/Cargo.toml"} {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, []byte("[package]\nname = \"m\"\n[features]\ndefault = [\"a\"]\na = [\"b\", \"dep:x\"]\nb = [\"a\"]\n[dependencies]\nx = { version = \"1\", optional = true }\n"))
	}
	f.Add([]byte("[workspace]\nmembers = [\"m\"]\n[workspace.dependencies]\nx = \"1\"\n"), []byte("[package]\nname = \"m\"\n[dependencies]\nx.workspace = true\nroot = { path = \"..\" }\n"))
	f.Fuzz(func(t *testing.T, root, member []byte) {
		fsys := fstest.MapFS{"Cargo.toml": {Data: root}, "m/Cargo.toml": {Data: member}}
		m, err := ReadManifestFS(fsys)
		if err != nil {
			return
		}
		for _, d := range m.Dependencies {
			if d.Manifest != "Cargo.toml" && d.Manifest != "m/Cargo.toml" {
				t.Fatalf("a dependency of %q", d.Manifest)
			}
		}
		ix := &Index{crates: map[string]map[string]*packaged{}}
		_, _ = ix.Resolve(m, RISCV64, true)
	})
}
