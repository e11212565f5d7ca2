package repair

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// picotoolTree is picotool 2.1.1's real build files that name paths below
// ${PICO_SDK_PATH}.
func picotoolTree(t *testing.T) memTree {
	return memTree{
		"CMakeLists.txt":               readLog(t, "cmake/picotool-2.1.1.txt"),
		"lib/CMakeLists.txt":           readLog(t, "cmake/picotool-2.1.1-lib.txt"),
		"xip_ram_perms/CMakeLists.txt": readLog(t, "cmake/picotool-2.1.1-xip_ram_perms.txt"),
		"main.cpp":                     "",
	}
}

// packageLists is a PackageFilesFunc over fixed lists, recording what it was asked.
type packageLists struct {
	lists map[string][]string
	asked []string
}

func (p *packageLists) files(_ context.Context, pkg string) ([]string, error) {
	p.asked = append(p.asked, pkg)
	l, ok := p.lists[pkg]
	if !ok {
		return nil, errors.New("E: Unable to locate package " + pkg)
	}
	return l, nil
}

// TestSDKPathRule runs the rule on the real configure output of Debian's picotool
// 2.1.1+dfsg ("PICO_SDK_PATH is not defined"), its real CMakeLists.txt files and the
// real file list of trixie's pico-sdk-source 2.1.1-1: the SDK is /usr/src/pico-sdk,
// the directory that holds pico_sdk_version.cmake and the other paths the build names
// below ${PICO_SDK_PATH}.
func TestSDKPathRule(t *testing.T) {
	const build = "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"
	picoList := parsePackageFiles(readLog(t, "sdkpath/pico-sdk-source-2.1.1.list"))
	picotool := &Distribution{Package: "picotool", Version: "2.1.1+dfsg-1",
		BuildDepends: []string{"cmake", "help2man", "libusb-1.0-0-dev", "pico-sdk-source", "pkgconf"}}
	noSDK := &Distribution{Package: "picotool", Version: "2.1.1+dfsg-1", BuildDepends: []string{"cmake", "libusb-1.0-0-dev"}}
	envOnly := memTree{"CMakeLists.txt": "if(NOT DEFINED ENV{FOO_SDK_ROOT})\n  message(FATAL_ERROR \"FOO_SDK_ROOT is not set\")\nendif()\n" +
		"include($ENV{FOO_SDK_ROOT}/cmake/foo_sdk.cmake)\n"}
	fooDist := &Distribution{Package: "bar", Version: "1.0-1", BuildDepends: []string{"cmake", "libfoo-sdk-dev"}}
	fooList := []string{"/usr", "/usr/lib", "/usr/lib/foo-sdk", "/usr/lib/foo-sdk/cmake", "/usr/lib/foo-sdk/cmake/foo_sdk.cmake"}
	// A build that names no path below the variable: the SDK's own CMake files mark it.
	noMention := memTree{"CMakeLists.txt": "if(NOT PICO_SDK_PATH)\n  message(FATAL_ERROR \"PICO_SDK_PATH is not defined\")\nendif()\n"}
	tests := []struct {
		name      string
		log       string
		plan      string
		planSetup string
		tree      memTree
		dist      *Distribution
		lists     map[string][]string
		noLister  bool
		buildLine string
		setup     string
		asked     []string
		analysis  string
		none      string
	}{
		{name: "picotool: pico-sdk-source's /usr/src/pico-sdk", log: "sdk-path-picotool.log", plan: build, tree: picotoolTree(t), dist: picotool,
			lists:     map[string][]string{"pico-sdk-source": picoList},
			buildLine: "cmake -DPICO_SDK_PATH=/usr/src/pico-sdk -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)",
			setup:     "apt-get update && apt-get install -y build-essential pico-sdk-source cmake help2man libusb-1.0-0-dev pkgconf", asked: []string{"pico-sdk-source"},
			analysis: "pico-sdk-source, whose /usr/src/pico-sdk holds 12 of the 14 paths"},
		{name: "the SDK's own CMake files mark it when the build names no path", log: "sdk-path-picotool.log", plan: build, tree: noMention, dist: picotool,
			lists:     map[string][]string{"pico-sdk-source": picoList},
			buildLine: "cmake -DPICO_SDK_PATH=/usr/src/pico-sdk -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)",
			setup:     "apt-get update && apt-get install -y build-essential pico-sdk-source cmake help2man libusb-1.0-0-dev pkgconf", analysis: "holds the SDK's CMake files (named like pico_sdk)"},
		{name: "a build that reads only the environment gets the variable there", log: "CMake Error at CMakeLists.txt:2 (message):\n  FOO_SDK_ROOT is not set\n",
			plan: build, tree: envOnly, dist: fooDist, lists: map[string][]string{"libfoo-sdk-dev": fooList},
			buildLine: "FOO_SDK_ROOT=/usr/lib/foo-sdk cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)",
			setup:     "apt-get update && apt-get install -y build-essential libfoo-sdk-dev cmake", analysis: "Its other Build-Depends are installed with it: cmake."},
		{name: "a configure script gets it in its environment", log: "configure: error: Please set FOO_SDK_ROOT to the SDK\n",
			plan: "./configure && make -j$(nproc)", tree: memTree{"configure": "test -f \"$FOO_SDK_ROOT/cmake/foo_sdk.cmake\"\n"}, dist: fooDist,
			lists: map[string][]string{"libfoo-sdk-dev": fooList}, buildLine: "FOO_SDK_ROOT=/usr/lib/foo-sdk ./configure && make -j$(nproc)",
			setup: "apt-get update && apt-get install -y build-essential libfoo-sdk-dev cmake"},
		{name: "no Build-Depends named like the SDK: no fix", log: "sdk-path-picotool.log", plan: build, tree: picotoolTree(t), dist: noSDK,
			none: "no Build-Depends of picotool 2.1.1+dfsg-1 is named like PICO_SDK (cmake libusb-1.0-0-dev)"},
		{name: "not a distribution's source: no fix", log: "sdk-path-picotool.log", plan: build, tree: picotoolTree(t),
			none: "no counterpart in the distribution"},
		{name: "a package holding none of the paths: no fix", log: "sdk-path-picotool.log", plan: build, tree: picotoolTree(t), dist: picotool,
			lists: map[string][]string{"pico-sdk-source": {"/usr", "/usr/share/doc/pico-sdk-source/copyright"}}, asked: []string{"pico-sdk-source"},
			none: "no directory of pico-sdk-source holds pico_sdk_version.cmake, src/rp2350/hardware_regs/include/hardware/regs/otp_data.h, src/common/pico_binary_info or 11 other paths"},
		{name: "the package cannot be installed: no fix", log: "sdk-path-picotool.log", plan: build, tree: picotoolTree(t), dist: picotool,
			lists: map[string][]string{}, none: "pico-sdk-source: E: Unable to locate package pico-sdk-source"},
		{name: "no sandbox to list the package: no fix", log: "sdk-path-picotool.log", plan: build, tree: picotoolTree(t), dist: picotool, noLister: true,
			none: "the sandbox cannot list the files of pico-sdk-source"},
		{name: "already configured with the directory: no fix", log: "sdk-path-picotool.log", tree: picotoolTree(t), dist: picotool,
			plan: "cmake -DPICO_SDK_PATH=/usr/src/pico-sdk -S . -B build && cmake --build build", planSetup: "apt-get update && apt-get install -y build-essential pico-sdk-source cmake help2man libusb-1.0-0-dev pkgconf",
			lists: map[string][]string{"pico-sdk-source": picoList}, none: "the plan already installs pico-sdk-source and configures with -DPICO_SDK_PATH=/usr/src/pico-sdk"},
		{name: "no configure command: no fix", log: "sdk-path-picotool.log", plan: "make -j$(nproc)", tree: picotoolTree(t), dist: picotool,
			none: "no cmake, meson or configure command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := buildFailure(t, tt.log, tt.plan)
			f.Packaged = true
			if claims := Claims(f, nil); !slices.Contains(claims, sdkPathRuleName) {
				t.Fatalf("claims %v", claims)
			}
			lists := &packageLists{lists: tt.lists}
			env := Env{Platform: debian(t), Plan: defaultPlan(tt.plan), Files: tt.tree.files(), ReadFile: tt.tree.read}
			if tt.planSetup != "" {
				env.Plan.Phases[0].Commands = []string{tt.planSetup}
			}
			if !tt.noLister {
				env.PackageFiles = lists.files
			}
			if tt.dist != nil {
				env.Distribution = distOf(tt.dist)
			}
			fix, why := makeSDKPath(context.Background(), f, env)
			if tt.asked != nil {
				if diff := cmp.Diff(tt.asked, lists.asked); diff != "" {
					t.Errorf("packages listed (-want +got):\n%s", diff)
				}
			}
			if !wantFix(t, fix, why, tt.none) {
				return
			}
			wantBuildLine(t, fix, tt.buildLine)
			if got := fix.Plan.Phases[0].Commands[0]; got != tt.setup {
				t.Errorf("setup line\n got %s\nwant %s", got, tt.setup)
			}
			if !strings.Contains(fix.Analysis, tt.analysis) {
				t.Errorf("analysis %q lacks %q", fix.Analysis, tt.analysis)
			}
		})
	}
}

// TestSDKPathProposed: through Propose, as the graph runs the rules, the real
// picotool failure gets this rule's fix before distribution-configure's.
func TestSDKPathProposed(t *testing.T) {
	const build = "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"
	f := buildFailure(t, "sdk-path-picotool.log", build)
	f.Packaged = true
	tree := picotoolTree(t)
	lists := &packageLists{lists: map[string][]string{"pico-sdk-source": parsePackageFiles(readLog(t, "sdkpath/pico-sdk-source-2.1.1.list"))}}
	env := Env{Platform: debian(t), Plan: defaultPlan(build), Files: tree.files(), ReadFile: tree.read, PackageFiles: lists.files,
		Distribution: distOf(&Distribution{Package: "picotool", Version: "2.1.1+dfsg-1", BuildDepends: []string{"cmake", "libusb-1.0-0-dev", "pico-sdk-source"}})}
	fix, notes := Propose(context.Background(), f, env, nil)
	if fix == nil || fix.Rule != sdkPathRuleName {
		t.Fatalf("Propose = %+v, notes %v", fix, notes)
	}
}

func TestAskedVariable(t *testing.T) {
	tests := []struct {
		text, want string
	}{
		{"CMake Error at CMakeLists.txt:14 (message):\n  PICO_SDK_PATH is not defined\n", "PICO_SDK_PATH"},
		// The Pico SDK's own external/pico_sdk_import.cmake, as it reads.
		{"SDK location was not specified. Please set PICO_SDK_PATH or set PICO_SDK_FETCH_FROM_GIT to on to fetch from git.", "PICO_SDK_PATH"},
		{"The ANDROID_NDK_HOME environment variable is not set", "ANDROID_NDK_HOME"},
		{"You must define the variable ZEPHYR_BASE_DIR first", "ZEPHYR_BASE_DIR"},
		// find_package's hint names a mixed-case Foo_DIR in quotes: the package rules'.
		{`Add the installation prefix of "Foo" to CMAKE_PREFIX_PATH or set "Foo_DIR" to a directory containing one of the above files.`, ""},
		{`set "LIBUSB_DIR" to a directory containing one of the above files`, ""},
		{"Could NOT find Boost (missing: Boost_INCLUDE_DIR)", ""},
		{"PICO_SDK_VERSION is not defined", ""},
	}
	for _, tt := range tests {
		got, ok := askedVariable(tt.text)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("askedVariable(%q) = %q, %v; want %q", tt.text, got, ok, tt.want)
		}
	}
}

func TestPackagesNamedLike(t *testing.T) {
	tests := []struct {
		stem string
		pkgs []string
		want []string
	}{
		{"PICO_SDK", []string{"cmake", "pioasm", "pico-sdk-source", "libusb-1.0-0-dev"}, []string{"pico-sdk-source"}},
		{"FOO_SDK", []string{"libfoo-sdk-dev", "foo-sdk", "x-foo-sdk"}, []string{"foo-sdk", "libfoo-sdk-dev", "x-foo-sdk"}},
		{"ANDROID_NDK", []string{"google-android-ndk-r26c-installer", "android-sdk"}, []string{"google-android-ndk-r26c-installer"}},
		{"PICO_SDK", []string{"picosdk", "pico", "sdk-pico"}, nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, packagesNamedLike(tt.pkgs, tt.stem)); diff != "" {
			t.Errorf("packagesNamedLike(%v, %s) (-want +got):\n%s", tt.pkgs, tt.stem, diff)
		}
	}
}

// FuzzSDKPathMatch: the failure's text and the build files are the package's.
func FuzzSDKPathMatch(f *testing.F) {
	f.Add("PICO_SDK_PATH is not defined", "include(${PICO_SDK_PATH}/pico_sdk_version.cmake)")
	f.Add("Please set FOO_ROOT", "$ENV{FOO_ROOT}/../x ${FOO_ROOT}/a/./b")
	f.Fuzz(func(t *testing.T, msg, build string) {
		v, ok := askedVariable(msg)
		if !ok {
			return
		}
		if !strings.Contains(msg, v) || !slices.ContainsFunc(sdkVariableSuffixes, func(s string) bool { return strings.HasSuffix(v, s) }) {
			t.Fatalf("askedVariable(%q) = %q", msg, v)
		}
		for _, m := range mentionsBelow(build, v) {
			if m == "" || strings.HasPrefix(m, "/") || strings.Contains(m, "..") && strings.Contains("/"+m+"/", "/../") || strings.ContainsAny(m, " $'\"") {
				t.Fatalf("mentionsBelow(%q, %s) gave %q", build, v, m)
			}
		}
	})
}
