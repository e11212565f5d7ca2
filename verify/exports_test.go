package verify

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
)

func TestPublicHeaders(t *testing.T) {
	tree := []string{"CMakeLists.txt", "build/zconf.h", "contrib/minizip/zip.h", "deflate.h", "include/foo/api.h",
		"include/foo/api_internal.h", "test/helper.h", "zconf.h", "zlib.h", "zutil.h"}
	libs := []atesor.Artifact{{Path: "/workspace/zlib/libz.so.1.3.1"}, {Path: "/workspace/zlib/libz.a"}}
	public, dirs := publicHeaders(tree, libs, "zlib")
	if diff := cmp.Diff([]string{"include/foo/api.h", "zlib.h"}, public); diff != "" {
		t.Errorf("public (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{".", "build", "include/foo"}, dirs); diff != "" {
		t.Errorf("dirs (-want +got):\n%s", diff)
	}
}

func TestInstalledHeaders(t *testing.T) {
	inst := &atesor.Install{OK: true, StageDir: "/workspace/.atesor-stage/zlib", DevFiles: []string{
		"usr/local/include/zlib.h", "usr/local/include/zconf.h", "usr/local/include/foo/bar.h",
		"usr/local/lib/pkgconfig/zlib.pc",
	}}
	h, dirs, stage := installedHeaders(inst)
	if diff := cmp.Diff([]string{"usr/local/include/zlib.h", "usr/local/include/zconf.h", "usr/local/include/foo/bar.h"}, h); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"usr/local/include", "usr/local/include/foo"}, dirs); diff != "" {
		t.Errorf("dirs (-want +got):\n%s", diff)
	}
	if stage != inst.StageDir {
		t.Errorf("stage = %q", stage)
	}
	if h, _, _ := installedHeaders(&atesor.Install{OK: false, DevFiles: []string{"include/x.h"}}); h != nil {
		t.Errorf("a failed install's headers were used: %v", h)
	}
}
