package knowledge

import (
	"errors"
	"testing"
)

func TestDebianMirrorFrom(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"deb822", map[string]string{"sources.list.d/debian.sources": "Types: deb\n# comment\nURIs: http://mirror.invalid/debian/\nSuites: trixie trixie-updates\nComponents: main\n\nTypes: deb\nURIs: http://mirror.invalid/debian-security\nSuites: trixie-security\n"}, "http://mirror.invalid/debian"},
		{"security first", map[string]string{"sources.list.d/a.sources": "Types: deb\nURIs: http://sec.invalid/x\nSuites: trixie-security\n\nTypes: deb-src\nURIs: http://src.invalid/debian\nSuites: trixie\n\nTypes: deb\nEnabled: no\nURIs: http://off.invalid/debian\nSuites: trixie\n\nTypes: deb\nURIs: https://on.invalid/debian\nSuites: trixie\n"}, "https://on.invalid/debian"},
		{"one-line", map[string]string{"sources.list": "# deb http://old.invalid/debian bookworm main\ndeb http://sec.invalid/debian-security bookworm-security main\ndeb [arch=amd64 signed-by=/k.gpg] http://one.invalid/debian bookworm main\n"}, "http://one.invalid/debian"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeTree(t, tt.files)
			got, err := debianMirrorFrom(dir)
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	if _, err := debianMirrorFrom(t.TempDir()); !errors.Is(err, ErrNoDebianMirror) {
		t.Errorf("empty apt dir: %v", err)
	}
}

func TestDebianMirrorEnv(t *testing.T) {
	t.Setenv(DebianMirrorEnv, "http://env.invalid/debian/")
	got, err := DebianMirror()
	if err != nil || got != "http://env.invalid/debian" {
		t.Errorf("got %q, %v", got, err)
	}
}
