package graph

import "testing"

func TestPackageName(t *testing.T) {
	tests := []struct{ source, want string }{
		{"/src/zlib_1.3.dfsg+really1.3.1.orig.tar.gz", "zlib"},
		{"/tmp/lz4_1.10.0.orig.tar.gz", "lz4"},
		{"https://example.org/pub/xxHash-0.8.2.tar.gz", "xxHash"},
		{"https://git.example.org/team/cJSON.git", "cJSON"},
		{"git@git.example.org:team/cJSON.git", "cJSON"},
		{"./testdata/packages/hello/", "hello"},
		{"/work/my project", "my-project"},
		{"pkg.zip", "pkg"},
		{"/", "package"},
	}
	for _, tt := range tests {
		if got := PackageName(tt.source); got != tt.want {
			t.Errorf("PackageName(%q) = %q, want %q", tt.source, got, tt.want)
		}
	}
}

func TestKindOf(t *testing.T) {
	tests := []struct {
		source string
		want   SourceKind
	}{
		{"/src/zlib.tar.gz", SourceTarball},
		{"https://example.org/x-1.0.tar.xz", SourceURL},
		{"https://git.example.org/a/b", SourceGit},
		{"git@host:a/b.git", SourceGit},
		{"/srv/no-such-repo.git", SourceGit},
		{"./dir", SourceDir},
	}
	for _, tt := range tests {
		if got := KindOf(tt.source); got != tt.want {
			t.Errorf("KindOf(%q) = %s, want %s", tt.source, got, tt.want)
		}
	}
}
