package repair

import (
	"context"
	"slices"
	"testing"
)

// TestFeatureOffRule runs the rule on the real configure output of Debian's discover
// 2.1.2 (configure probes curl-config, finds none and stops: "curl-config --libs
// failed.") with the --help text of its real configure script: Debian's Build-Depends
// name no curl, so the port configures --disable-curl, as Debian's build has it.
func TestFeatureOffRule(t *testing.T) {
	const build = "./configure && make -j$(nproc)"
	help := readLog(t, "autotools/discover-2.1.2.configure-help")
	discover := &Distribution{Package: "discover", Version: "2.1.2-10.1",
		BuildDepends: []string{"debhelper-compat", "libexpat1-dev", "po-debconf", "libusb-1.0-0-dev", "autotools-dev", "libtool-bin"}}
	// genders 1.27.3's Java JNI extension is on by default; Debian builds it without.
	genders := &Distribution{Package: "genders", Version: "1.27.3-2", BuildDepends: []string{"perl", "autotools-dev", "chrpath", "flex", "bison"}}
	gendersTree := memTree{"src/extensions/java/src/Gendersjni.c": "#include <jni.h>\n", "src/libgenders/genders.c": ""}
	// dropwatch 1.5.4 checks bfd.h unless --without-bfd; Debian's Build-Depends name no binutils-dev.
	dropwatch := &Distribution{Package: "dropwatch", Version: "1.5.4-4",
		BuildDepends: []string{"debhelper-compat", "automake", "libnl-genl-3-dev", "libpcap-dev", "libreadline-dev", "pkgconf", "psmisc"}}
	withCurl := &Distribution{Package: "discover", Version: "2.1.2-10.1", BuildDepends: []string{"libexpat1-dev", "libcurl4-gnutls-dev"}}
	tests := []struct {
		name     string
		log      string
		plan     string
		script   string
		dist     *Distribution
		tree     memTree
		repo     string
		planLine string
		none     string
	}{
		{name: "discover: Debian builds without curl", log: readLog(t, "configure-feature-discover.log"), plan: build, script: help, dist: discover,
			planLine: "./configure --disable-curl && make -j$(nproc)"},
		{name: "dropwatch: a feature on by default, listed by its --without switch", log: readLog(t, "configure-feature-dropwatch.log"), plan: build,
			script: readLog(t, "autotools/dropwatch-1.5.4.configure-help"), dist: dropwatch, planLine: "./configure --without-bfd && make -j$(nproc)"},
		{name: "a --disable switch names its feature", log: "configure: error: libfoo headers not found\n", plan: build, dist: discover,
			script: "  --disable-libfoo        build without libfoo\n", planLine: "./configure --disable-libfoo && make -j$(nproc)"},
		{name: "a --with feature", log: "checking for ldap... no\nconfigure: error: LDAP headers not found\n", plan: build, dist: discover,
			script: "  --with-ldap             use OpenLDAP\n  --with-pic              PIC\n", planLine: "./configure --without-ldap && make -j$(nproc)"},
		{name: "the distribution builds with it: no fix", log: readLog(t, "configure-feature-discover.log"), plan: build, script: help, dist: withCurl,
			none: "builds with curl (Build-Depends libcurl4-gnutls-dev)"},
		{name: "not a distribution's source: no fix", log: readLog(t, "configure-feature-discover.log"), plan: build, script: help,
			none: "not a distribution's source"},
		{name: "an error naming no feature: no fix", log: "configure: error: C compiler cannot create executables\n", plan: build, script: help, dist: discover,
			none: "names no --enable or --with feature"},
		{name: "machinery switches are no feature", log: "configure: error: shared libraries are not supported with gnu ld\n", plan: build, dist: discover,
			script: "  --enable-shared=PKGS  build shared libraries\n  --with-gnu-ld           assume GNU ld\n", none: "names no --enable or --with feature"},
		{name: "two features named: no fix", log: "configure: error: neither curl nor wget found\n", plan: build, dist: discover,
			script: "  --enable-curl   curl\n  --enable-wget   wget\n", none: "names no --enable"},
		{name: "already configured so: no fix", log: readLog(t, "configure-feature-discover.log"), plan: "./configure --disable-curl && make", script: help, dist: discover,
			none: "already configures with --disable-curl"},
		{name: "genders: the Java extension's source misses jni.h", log: readLog(t, "configure-feature-genders.log"), plan: build,
			script: "  --with-java-extensions= enable or disable java extensions build\n", dist: genders, tree: gendersTree,
			planLine: "./configure --without-java-extensions && make -j$(nproc)"},
		{name: "genders: the Python extension's recipe fails in its directory", log: readLog(t, "configure-feature-genders-python.log"), plan: build,
			script: readLog(t, "autotools/genders-1.27.3.configure-help"), dist: genders, repo: "/workspace/genders",
			planLine: "./configure --without-python-extensions && make -j$(nproc)"},
		{name: "a failed make directory of no feature: no fix", plan: build, script: readLog(t, "autotools/genders-1.27.3.configure-help"), dist: genders, repo: "/workspace/genders",
			log: "make[2]: *** [Makefile:400: all] Error 1\nmake[2]: Leaving directory '/workspace/genders/src/libgenders'\n", none: "names no --enable or --with feature"},
		{name: "a failed make directory outside the repository: no fix", plan: build, script: readLog(t, "autotools/genders-1.27.3.configure-help"), dist: genders, repo: "/workspace/genders",
			log: "make[2]: *** [Makefile:400: all] Error 1\nmake[2]: Leaving directory '/workspace/other/extensions/python'\n", none: "no configure error, missing header or failed make directory"},
		{name: "a missing header of a source in no feature's directory: no fix", log: "src/main.c:1:10: fatal error: jni.h: No such file or directory\n", plan: build,
			script: "  --with-java-extensions= java\n", dist: genders, tree: memTree{"src/main.c": ""}, none: "names no --enable or --with feature"},
		{name: "a CMake plan: no fix", log: readLog(t, "configure-feature-discover.log"), plan: "cmake -S . -B build && cmake --build build", script: help, dist: discover,
			none: "no configure command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := buildFailure(t, tt.log, tt.plan)
			f.Packaged = true
			if claims := Claims(f, nil); !slices.Contains(claims, featureOffRuleName) {
				t.Fatalf("claims %v", claims)
			}
			tree := memTree{"configure": "#!/bin/sh\n" + tt.script, "configure.ac": "AC_INIT(x)\n"}
			for k, v := range tt.tree {
				tree[k] = v
			}
			env := Env{Platform: debian(t), Plan: defaultPlan(tt.plan), Files: tree.files(), ReadFile: tree.read, RepoDir: tt.repo}
			if tt.dist != nil {
				env.Distribution = distOf(tt.dist)
			}
			fix, why := makeFeatureOff(context.Background(), f, env)
			if !wantFix(t, fix, why, tt.none) {
				return
			}
			wantBuildLine(t, fix, tt.planLine)
		})
	}
}

// FuzzFailedFeature: the configure script and the error are the package's text.
func FuzzFailedFeature(f *testing.F) {
	f.Add("  --enable-curl   Use curl\n", "curl-config --libs failed.")
	f.Add("  --with-ldap\n  --with-ldap-dir=DIR\n", "LDAP not found")
	f.Add("  --without-bfd   Build without bfd\n  --disable-nls\n", "Couldn't find or include bfd.h")
	f.Fuzz(func(t *testing.T, script, msg string) {
		words := map[string]bool{}
		addWords(words, msg)
		name, fam, ok := failedFeature(script, words)
		if ok && (name == "" || (fam != "enable" && fam != "with") || !featureNamed(name, words)) {
			t.Fatalf("failedFeature(%q, %q) = %q, %q", script, msg, name, fam)
		}
	})
}
