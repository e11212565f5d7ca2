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
