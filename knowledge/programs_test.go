package knowledge

import "testing"

func TestProgramAndDependencyPackage(t *testing.T) {
	deb, err := Profile("debian")
	if err != nil {
		t.Fatal(err)
	}
	alp, err := Profile("alpine")
	if err != nil {
		t.Fatal(err)
	}
	programs := []struct {
		program, debian, alpine string
	}{
		{"msgfmt", "gettext", "gettext-dev"},
		{"go", "golang-go", "go"},
		{"/usr/bin/bison", "bison", "bison"},
		{"makeinfo", "texinfo", "texinfo"},
		{"yacc", "bison", "bison"},
		{"ninja", "ninja-build", "samurai"},
		{"pkg-config", "pkgconf", "pkgconf"},
		{"frobnicate", "", ""},
		{"", "", ""},
		{"configure", "", ""},
	}
	for _, tt := range programs {
		if got, ok := ProgramPackage(deb, tt.program); got != tt.debian || ok != (tt.debian != "") {
			t.Errorf("ProgramPackage(debian, %q) = %q, %t; want %q", tt.program, got, ok, tt.debian)
		}
		if got, _ := ProgramPackage(alp, tt.program); got != tt.alpine {
			t.Errorf("ProgramPackage(alpine, %q) = %q; want %q", tt.program, got, tt.alpine)
		}
	}
	deps := []struct{ name, debian string }{
		{"libcurl", "libcurl4-openssl-dev"}, {"z", "zlib1g-dev"}, {"glib-2.0", "libglib2.0-dev"}, {"pthread", ""}, {"nosuchlib", ""},
	}
	for _, tt := range deps {
		if got, ok := DependencyPackage(deb, tt.name); got != tt.debian || ok != (tt.debian != "") {
			t.Errorf("DependencyPackage(debian, %q) = %q, %t; want %q", tt.name, got, ok, tt.debian)
		}
	}
}
