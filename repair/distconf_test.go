package repair

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/buildlog"
	"github.com/eclipse-atesor/atesor-go/knowledge/debsrc"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// debianBuild is how Debian builds a package, from the real debian/rules in
// knowledge/debsrc's testdata and the Build-Depends of its trixie Sources stanza.
func debianBuild(t *testing.T, pkg, version, buildDepends string) *Distribution {
	t.Helper()
	rules, err := os.ReadFile(filepath.Join("..", "knowledge", "debsrc", "testdata", "rules", pkg+".rules"))
	if err != nil {
		t.Fatal(err)
	}
	return &Distribution{Package: pkg, Version: version, Switches: debsrc.ConfigureSwitches(string(rules)),
		BuildDepends: debsrc.BuildDepends(buildDepends, "riscv64")}
}

func distOf(d *Distribution) DistributionFunc {
	return func(context.Context) (*Distribution, error) { return d, nil }
}

const (
	spdlogDeps  = `debhelper-compat (= 13), cmake, ninja-build, pkgconf, libfmt-dev (>= 10), pkg-kde-tools, libsystemd-dev [linux-any] <!nocheck>, catch2 (>= 3.0.0) <!nocheck>`
	lzo2Deps    = `debhelper-compat (= 13), pkgconf`
	libinihDeps = `debhelper-compat (= 13), meson`
	fribidiDeps = `debhelper-compat (= 13), pkgconf`
	spdlogSetup = "apt-get update && apt-get install -y build-essential cmake pkgconf libfmt-dev"
)

// TestDistributionConfigureRule runs the rule on the real log of Debian's repacked
// spdlog (its +ds tarball lacks include/spdlog/fmt/bundled) with its real CMakeLists.txt,
// debian/rules and Build-Depends, and on lzo2 (autotools) and libinih (meson) with
// theirs.
func TestDistributionConfigureRule(t *testing.T) {
	spdlog := debianBuild(t, "spdlog", "1:1.15.2+ds-2", spdlogDeps)
	tests := []struct {
		name     string
		output   string
		phase    string
		dist     DistributionFunc
		plan     *atesor.BuildPlan
		tree     memTree
		fixes    []atesor.FixAttempt
		build    string // the configure line of the new plan
		setup    string // the setup line of the new plan
		analysis []string
		none     string // the reason when no fix is made
	}{
		{name: "spdlog: the external fmt Debian configures, its build dependencies installed",
			output: readLog(t, "dist-spdlog.log"), phase: "build", dist: distOf(spdlog),
			plan:  &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "setup", Commands: []string{spdlogSetup}}, {Name: "build", Commands: []string{cmakeBuild}}}},
			tree:  memTree{"CMakeLists.txt": readLog(t, "cmake/spdlog-1.15.2.txt"), "src/spdlog.cpp": ""},
			build: "cmake -DSPDLOG_FMT_EXTERNAL=ON -DSPDLOG_BUILD_SHARED=ON -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)",
			setup: spdlogSetup + " ninja-build libsystemd-dev catch2",
			analysis: []string{"Debian configures spdlog 1:1.15.2+ds-2 with -DSPDLOG_FMT_EXTERNAL=ON -DSPDLOG_BUILD_SHARED=ON",
				"installs cmake ninja-build pkgconf libfmt-dev libsystemd-dev catch2", "-DSPDLOG_BUILD_TESTS=ON or -DSPDLOG_BUILD_TESTS=OFF"}},
		{name: "spdlog: a switch the plan sets the other way is replaced",
			output: readLog(t, "dist-spdlog.log"), phase: "build", dist: distOf(spdlog),
			plan: &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "setup", Commands: []string{spdlogSetup}},
				{Name: "build", Commands: []string{"cmake -S . -B build -DSPDLOG_FMT_EXTERNAL=OFF -DCMAKE_BUILD_TYPE=Release && cmake --build build"}}}},
			tree:  memTree{"CMakeLists.txt": readLog(t, "cmake/spdlog-1.15.2.txt")},
			build: "cmake -DSPDLOG_BUILD_SHARED=ON -S . -B build -DSPDLOG_FMT_EXTERNAL=ON -DCMAKE_BUILD_TYPE=Release && cmake --build build",
			setup: spdlogSetup + " ninja-build libsystemd-dev catch2"},
		{name: "lzo2: configure with Debian's --enable-shared",
			output: "configure: error: something upstream's defaults need\n", phase: "build",
			dist:  distOf(debianBuild(t, "lzo2", "2.10-3", lzo2Deps)),
			plan:  defaultPlan("./configure && make -j$(nproc)"),
			tree:  memTree{"configure.ac": readLog(t, "autotools/lzo-2.10.configure.ac"), "src/lzo1.c": ""},
			build: "./configure --enable-shared && make -j$(nproc)", setup: "apt-get update && apt-get install -y build-essential pkgconf",
			analysis: []string{"Debian configures lzo2 2.10-3 with --enable-shared"}},
		{name: "libinih: meson options Debian sets, its place settings left to the port",
			output: "meson.build:1:0: ERROR: something\n", phase: "build",
			dist:  distOf(debianBuild(t, "libinih", "59-1", libinihDeps)),
			plan:  defaultPlan("meson setup build && ninja -C build"),
			tree:  memTree{"meson_options.txt": readLog(t, "meson/inih-r59.options"), "meson.build": "project('inih', 'c')\n"},
			build: "meson setup -Dwith_INIReader=true build && ninja -C build", setup: "apt-get update && apt-get install -y build-essential meson",
			analysis: []string{"Debian configures libinih 59-1 with -Dwith_INIReader=true (", "places and build settings (-Ddefault_library=both -Ddistro_install=true)"}},
		{name: "fribidi: the packaging's configure switches do not fit a meson plan",
			output: "meson.build:1:0: ERROR: something\n", phase: "build",
			dist: distOf(debianBuild(t, "fribidi", "1.0.16-1", fribidiDeps)),
			plan: &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "setup", Commands: []string{"apt-get update && apt-get install -y build-essential meson pkgconf"}},
				{Name: "build", Commands: []string{"meson setup build && ninja -C build"}}}},
			tree: memTree{"meson.build": "project('fribidi', 'c')\n", "meson_options.txt": "option('docs', type : 'boolean', value : true)\n"},
			none: "the plan already configures and installs what fribidi 1.0.16-1 does"},
		{name: "no counterpart in the distribution", output: readLog(t, "dist-spdlog.log"), phase: "build",
			plan: defaultPlan(cmakeBuild), none: "no counterpart"},
		{name: "the lookup finds none", output: readLog(t, "dist-spdlog.log"), phase: "build", dist: distOf(nil),
			plan: defaultPlan(cmakeBuild), none: "no counterpart"},
		{name: "the packaging cannot be read", output: readLog(t, "dist-spdlog.log"), phase: "build",
			dist: func(context.Context) (*Distribution, error) { return nil, errors.New("HTTP 404") },
			plan: defaultPlan(cmakeBuild), none: "could not be read: HTTP 404"},
		{name: "once per run", output: readLog(t, "dist-spdlog.log"), phase: "build", dist: distOf(spdlog),
			plan: defaultPlan(cmakeBuild), fixes: []atesor.FixAttempt{{Source: atesor.FixSourceScripted, Rule: distRuleName}},
			none: "once in this run"},
		{name: "missing-package installed every build dependency already, no switch to add", output: "make: msgfmt: No such file or directory\n", phase: "build",
			dist: distOf(&Distribution{Package: "dos2unix", Version: "7.5.2-1", BuildDepends: []string{"gettext", "po4a"}}),
			plan: defaultPlan("make -j$(nproc)"), fixes: []atesor.FixAttempt{{Source: atesor.FixSourceScripted, Rule: "missing-package",
				Actions: []atesor.Action{{Type: atesor.ActionCommand, Command: "apt-get install -y gettext po4a"}}}},
			none: "an earlier fix installed every Build-Depends of dos2unix 7.5.2-1"},
		{name: "a failed setup phase", output: "E: Unable to locate package libfoo-dev\n", phase: "setup", dist: distOf(spdlog),
			plan: defaultPlan(cmakeBuild), none: "the setup phase failed"},
		{name: "a plain make build: the build dependencies alone", output: "make: msgfmt: No such file or directory\n", phase: "build",
			dist: distOf(&Distribution{Package: "dos2unix", Version: "7.5.2-1", BuildDepends: []string{"gettext", "po4a"}}),
			plan: defaultPlan("make -j$(nproc)"), build: "make -j$(nproc)", setup: "apt-get update && apt-get install -y build-essential gettext po4a",
			analysis: []string{"no configure step", "installs gettext po4a"}},
		{name: "a packaging the mirror does not serve: the Build-Depends of the signed index alone", output: "make: msgfmt: No such file or directory\n", phase: "build",
			dist: distOf(&Distribution{Package: "dos2unix", Version: "7.5.2-1", BuildDepends: []string{"po4a", "locales-all"}, Unread: "HTTP 404 Not Found"}),
			plan: defaultPlan("make -j$(nproc)"), build: "make -j$(nproc)", setup: "apt-get update && apt-get install -y build-essential po4a locales-all",
			analysis: []string{"could not be read", "installs po4a locales-all", "HTTP 404 Not Found"}},
		{name: "a plain make build whose dependencies are all there", output: "make: *** [all] Error 2\n", phase: "build", dist: distOf(spdlog),
			plan: &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "setup", Commands: []string{spdlogSetup + " ninja-build libsystemd-dev catch2"}},
				{Name: "build", Commands: []string{"make -j$(nproc)"}}}}, none: "already configures"},
	}
	p := debian(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := buildlog.Extract(tt.output)
			f := Failure{Category: ev.Category(), Message: ev.Text, Output: tt.output, Phase: tt.phase, Packaged: true}
			// The distribution's configuration, then its patches, are the last rules tried
			// but the one that leaves a failing part out.
			claims := slices.DeleteFunc(Claims(Failure{Category: f.Category, Message: f.Message, Packaged: true}, nil), func(r string) bool { return r == failingPartRuleName })
			if len(claims) < 2 || !slices.Equal(claims[len(claims)-2:], []string{distRuleName, distPatchesRuleName}) {
				t.Fatalf("Claims(%q) = %v, want %s then %s last", f.Message, claims, distRuleName, distPatchesRuleName)
			}
			if all := Rules(); all[len(all)-1].Name != failingPartRuleName {
				t.Fatalf("the last rule is %s, want %s", all[len(all)-1].Name, failingPartRuleName)
			}
			if claims := Claims(Failure{Category: f.Category, Message: f.Message}, nil); slices.Contains(claims, distRuleName) {
				t.Fatalf("Claims(%q) of a source the distribution does not package = %v", f.Message, claims)
			}
			before := slices.Clone(tt.plan.Phases[len(tt.plan.Phases)-1].Commands)
			env := Env{Platform: p, Plan: tt.plan, Files: tt.tree.files(), ReadFile: tt.tree.read, Distribution: tt.dist, Fixes: tt.fixes}
			fix, why := makeDistributionConfigure(context.Background(), f, env)
			if tt.none != "" {
				if fix != nil {
					t.Fatalf("fix %+v, want none", fix)
				}
				if !strings.Contains(why, tt.none) {
					t.Errorf("reason %q, want it to say %q", why, tt.none)
				}
				return
			}
			if fix == nil {
				t.Fatalf("no fix: %s", why)
			}
			if got := fix.Plan.Phases[len(fix.Plan.Phases)-1].Commands[0]; got != tt.build {
				t.Errorf("configure line\n got %q\nwant %q", got, tt.build)
			}
			if got := fix.Plan.Phases[0].Commands[0]; got != tt.setup {
				t.Errorf("setup line\n got %q\nwant %q", got, tt.setup)
			}
			for _, w := range tt.analysis {
				if !strings.Contains(fix.Analysis, w) {
					t.Errorf("analysis %q\ndoes not say %q", fix.Analysis, w)
				}
			}
			if err := validate.BuildPlan(fix.Plan); err != nil {
				t.Errorf("the new plan fails the scout's rules: %v", err)
			}
			if !slices.Equal(tt.plan.Phases[len(tt.plan.Phases)-1].Commands, before) {
				t.Error("the rule changed the caller's plan in place")
			}
			// With the new plan, the distribution's switches are all in it: no fix.
			env.Plan = fix.Plan
			if again, why := makeDistributionConfigure(context.Background(), f, env); again != nil || !strings.Contains(why, "already configures") {
				t.Errorf("the fixed plan gets another fix: %+v (%s)", again, why)
			}
		})
	}
}

// TestDistributionConfigureThroughPropose: on spdlog's failure the missing-package rule
// claims the missing header first and finds no package for it (Debian ships no bundled
// fmt); the distribution's configuration answers, last.
func TestDistributionConfigureThroughPropose(t *testing.T) {
	out := readLog(t, "dist-spdlog.log")
	ev := buildlog.Extract(out)
	f := Failure{Category: ev.Category(), Message: ev.Text, Output: out, Phase: "build", Packaged: true}
	tree := memTree{"CMakeLists.txt": readLog(t, "cmake/spdlog-1.15.2.txt")}
	env := Env{Platform: debian(t), Plan: defaultPlan(cmakeBuild), Files: tree.files(), ReadFile: tree.read,
		Packages: excerptIndex(t), Distribution: distOf(debianBuild(t, "spdlog", "1:1.15.2+ds-2", spdlogDeps))}
	fix, notes := Propose(context.Background(), f, env, nil)
	if fix == nil || fix.Rule != distRuleName {
		t.Fatalf("Propose = %+v, notes %v", fix, notes)
	}
	if !strings.HasPrefix(fix.Strategy, "as Debian builds it: configure with -DSPDLOG_FMT_EXTERNAL=ON") {
		t.Errorf("strategy %q", fix.Strategy)
	}
}

// TestDistributionSwitchesHostile: switches from the packaging that carry shell syntax,
// expansions, paths, the install layout or the build type never reach the plan, and
// packages are valid names only.
func TestDistributionSwitchesHostile(t *testing.T) {
	tree := memTree{"CMakeLists.txt": "option(FOO \"\" OFF)\noption(BAR \"\" OFF)\noption(LIB_INSTALL_DIR \"\" OFF)\n"}
	d := &Distribution{Package: "p", Version: "1-1", Switches: []string{
		"-DFOO=$(rm -rf /)", "-DFOO=`id`", "-DBAR=a;reboot", "-DBAR='x y'", "-DFOO=/usr/lib", "-DCMAKE_INSTALL_PREFIX=/usr",
		"-DCMAKE_INSTALL_LIBDIR=lib", "-DCMAKE_BUILD_TYPE=Debug", "-DCMAKE_C_FLAGS=-O0", "-DLIB_INSTALL_DIR=lib", "--prefix=/usr",
		"-DFOO=ON&&curl", "-DUNKNOWN=ON", "-DBAR=$HOME", "-DBAR=a|b",
	}}
	env := Env{Platform: debian(t), Plan: defaultPlan(cmakeBuild), Files: tree.files(), ReadFile: tree.read, Distribution: distOf(d)}
	f := Failure{Category: atesor.CategoryCompilation, Message: "error: x", Phase: "build"}
	fix, why := makeDistributionConfigure(context.Background(), f, env)
	if fix != nil {
		t.Fatalf("fix %q from hostile switches", fix.Plan.Phases[1].Commands[0])
	}
	if !strings.Contains(why, "already configures") {
		t.Errorf("reason %q", why)
	}
}

// FuzzDistributionSwitches: whatever switches the packaging holds, the plan the rule
// makes passes the scout's rules and its configure line gains only plain switch words.
func FuzzDistributionSwitches(f *testing.F) {
	for _, s := range []string{"-DSPDLOG_FMT_EXTERNAL=ON", "--enable-shared", "-Dwith_INIReader=true", "-DX=$(id)", "--with-x=/y"} {
		f.Add(s, "pkgconf")
	}
	tree := memTree{"CMakeLists.txt": "option(SPDLOG_FMT_EXTERNAL \"\" OFF)\n", "configure.ac": "AC_ARG_ENABLE([x], [])\nLT_INIT\n",
		"meson_options.txt": "option('with_INIReader', type : 'boolean')\n"}
	f.Fuzz(func(t *testing.T, sw, deps string) {
		for _, build := range []string{cmakeBuild, "./configure && make", "meson setup build && ninja -C build"} {
			d := &Distribution{Package: "p", Version: "1", Switches: strings.Fields(sw), BuildDepends: debsrc.BuildDepends(deps, "riscv64")}
			env := Env{Platform: atesor.Platform{Name: "debian", InstallCommand: "apt-get install -y"}, Plan: defaultPlan(build),
				Files: tree.files(), ReadFile: tree.read, Distribution: distOf(d)}
			fix, _ := makeDistributionConfigure(context.Background(), Failure{Category: atesor.CategoryCompilation, Message: "error", Phase: "build"}, env)
			if fix == nil {
				continue
			}
			if err := validate.BuildPlan(fix.Plan); err != nil {
				t.Fatalf("switches %q: plan refused: %v", sw, err)
			}
			for _, w := range strings.Fields(fix.Plan.Phases[1].Commands[0]) {
				if !slices.Contains(strings.Fields(build), w) && !switchChars.MatchString(w) {
					t.Fatalf("switches %q: the line gained %q", sw, w)
				}
			}
		}
	})
}

// TestDistributionKeepsTests: the packaging's switches that turn the tests off are left
// out (cppzmq 4.10's debian/rules passes -DCPPZMQ_BUILD_TESTS=OFF, and a header-only
// library's tests are its only evidence), and the note says so; its other switches and
// a test switch set on are taken.
func TestDistributionKeepsTests(t *testing.T) {
	tests := []struct {
		name     string
		kind     configureKind
		tree     memTree
		switches []string
		want     []string
	}{
		{name: "cppzmq: cmake", kind: cmakeKind,
			tree:     memTree{"CMakeLists.txt": "option(CPPZMQ_BUILD_TESTS \"Whether or not to build the tests\" ON)\noption(ENABLE_DRAFTS \"drafts\" OFF)\n"},
			switches: []string{"-DCPPZMQ_BUILD_TESTS=OFF", "-DENABLE_DRAFTS=ON"}, want: []string{"-DENABLE_DRAFTS=ON"}},
		{name: "cmake: tests on stay", kind: cmakeKind, tree: memTree{"CMakeLists.txt": "option(BUILD_TESTING \"t\" OFF)\n"},
			switches: []string{"-DBUILD_TESTING=ON"}, want: []string{"-DBUILD_TESTING=ON"}},
		{name: "meson", kind: mesonKind, tree: memTree{"meson_options.txt": "option('tests', type : 'boolean', value : true)\noption('docs', type : 'boolean')\n"},
			switches: []string{"-Dtests=false", "-Ddocs=false"}, want: []string{"-Ddocs=false"}},
		{name: "configure", kind: autotoolsKind, tree: memTree{"configure.ac": "AC_ARG_ENABLE([tests], [x])\nAC_ARG_ENABLE([foo], [y])\n"},
			switches: []string{"--disable-tests", "--enable-foo"}, want: []string{"--enable-foo"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, notes := pickSwitches(context.Background(), Env{Files: tt.tree.files(), ReadFile: tt.tree.read}, tt.kind, tt.switches)
			if !slices.Equal(got, tt.want) {
				t.Errorf("switches %q, want %q (notes %q)", got, tt.want, notes)
			}
			offs := len(tt.switches) - len(tt.want)
			if said := strings.Contains(strings.Join(notes, "; "), "turn the tests off"); said != (offs > 0) {
				t.Errorf("notes %q: a note on the tests-off switch %v, want %v", notes, said, offs > 0)
			}
		})
	}
}
