package verify

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
)

func TestCurateByRules(t *testing.T) {
	arts := []atesor.Artifact{
		{Path: "/workspace/cjson/build/libcjson.so.1.7.18", Kind: atesor.KindSharedLibrary},
		{Path: "/workspace/cjson/build/cJSON_test", Kind: atesor.KindExecutable},
		{Path: "/workspace/cjson/build/fuzzing/fuzz_main", Kind: atesor.KindExecutable},
		{Path: "/workspace/cjson/build/CMakeFiles/3.31/CompilerIdC/a.out", Kind: atesor.KindExecutable},
		{Path: "/workspace/cjson/build/tests/readme_examples", Kind: atesor.KindExecutable},
		{Path: "/workspace/cjson/build/cjson", Kind: atesor.KindExecutable},
		{Path: "/workspace/cjson/build/cjson.o", Kind: atesor.KindObject},
		{Path: "/workspace/cjson/build/jsontool", Kind: atesor.KindExecutable},
		{Path: "/workspace/cjson/build/attestation", Kind: atesor.KindExecutable},
	}
	got := map[string]atesor.ArtifactRole{}
	for _, a := range CurateByRules(arts, "cjson", "/workspace/cjson") {
		got[strings.TrimPrefix(a.Path, "/workspace/cjson/build/")] = a.Role
	}
	want := map[string]atesor.ArtifactRole{
		"libcjson.so.1.7.18": atesor.ArtifactPrimary, "cJSON_test": atesor.ArtifactSecondary,
		"fuzzing/fuzz_main": atesor.ArtifactSecondary, "tests/readme_examples": atesor.ArtifactSecondary,
		"cjson": atesor.ArtifactPrimary, "cjson.o": atesor.ArtifactSecondary, "jsontool": atesor.ArtifactPrimary,
		"attestation": atesor.ArtifactPrimary,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("roles (-want +got):\n%s", d)
	}
}

func TestCurateByRulesCargo(t *testing.T) {
	dir := "/workspace/serde-json"
	arts := []atesor.Artifact{
		{Path: dir + "/target/release/deps/libserde_json-0123456789abcdef.rlib", Kind: atesor.KindStaticLibrary},
		{Path: dir + "/target/release/deps/libitoa-d235137fcba164fe.rlib", Kind: atesor.KindStaticLibrary},
		{Path: dir + "/target/release/deps/serde_json-d235137fcba164fe", Kind: atesor.KindExecutable},
		{Path: dir + "/target/release/deps/test-19661f9ca6b355d7", Kind: atesor.KindExecutable},
		{Path: dir + "/target/release/build/serde_json-0123456789abcdef/build-script-build", Kind: atesor.KindExecutable},
		{Path: dir + "/target/riscv64gc-unknown-linux-gnu/release/deps/libmemchr-0123456789abcdef.rlib", Kind: atesor.KindStaticLibrary},
		{Path: dir + "/target/release/serde-json", Kind: atesor.KindExecutable},
		// Not cargo's output directory: the usual rules.
		{Path: dir + "/vendor/deps/libother-0123456789abcdef.rlib", Kind: atesor.KindStaticLibrary},
	}
	got := map[string]atesor.ArtifactRole{}
	for _, a := range CurateByRules(arts, "serde-json", dir) {
		got[strings.TrimPrefix(a.Path, dir+"/")] = a.Role
	}
	want := map[string]atesor.ArtifactRole{
		"target/release/deps/libserde_json-0123456789abcdef.rlib":                         atesor.ArtifactPrimary,
		"target/release/deps/libitoa-d235137fcba164fe.rlib":                               atesor.ArtifactSecondary,
		"target/release/deps/serde_json-d235137fcba164fe":                                 atesor.ArtifactPrimary,
		"target/release/deps/test-19661f9ca6b355d7":                                       atesor.ArtifactSecondary,
		"target/release/build/serde_json-0123456789abcdef/build-script-build":             atesor.ArtifactSecondary,
		"target/riscv64gc-unknown-linux-gnu/release/deps/libmemchr-0123456789abcdef.rlib": atesor.ArtifactSecondary,
		"target/release/serde-json":                                                       atesor.ArtifactPrimary,
		"vendor/deps/libother-0123456789abcdef.rlib":                                      atesor.ArtifactPrimary,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("roles (-want +got):\n%s", d)
	}
}
