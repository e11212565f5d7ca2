package repair

import (
	"path"
	"regexp"
	"slices"
	"strings"
)

// framework is a test or benchmark framework projects vendor under third_party/ and
// Debian packages: what its directory is called, the header the Contents index finds
// its -dev package by, the package names when there is no index, the find_package()
// names and the targets its CMake build defines; for the frameworks whose installed
// copy can stand in for a vendored directory, the find_package() name of that copy and
// the vendored build's targets with the installed targets each stands for.
type framework struct {
	name     string
	dirs     []string
	header   string
	packages []string
	find     []string
	targets  []string
	pkgName  string
	imports  []importTarget
}

// importTarget is a target a vendored framework's build defines (gtest) and the
// installed copy's imported target it stands for (GTest::gtest).
type importTarget struct{ vendored, installed string }

var frameworks = []framework{
	{name: "googletest", dirs: []string{"googletest", "gtest", "googlemock", "gmock"}, header: "gtest/gtest.h",
		packages: []string{"libgtest-dev", "libgmock-dev"}, find: []string{"gtest", "gmock"},
		targets: []string{"gtest", "gtest_main", "gmock", "gmock_main", "GTest::gtest", "GTest::gtest_main",
			"GTest::gmock", "GTest::gmock_main", "GTest::GTest", "GTest::Main"},
		pkgName: "GTest", imports: []importTarget{{"gtest", "GTest::gtest"}, {"gtest_main", "GTest::gtest_main"},
			{"gmock", "GTest::gmock"}, {"gmock_main", "GTest::gmock_main"}}},
	{name: "benchmark", dirs: []string{"benchmark", "google-benchmark", "googlebenchmark"}, header: "benchmark/benchmark.h",
		packages: []string{"libbenchmark-dev"}, find: []string{"benchmark"},
		targets: []string{"benchmark", "benchmark_main", "benchmark::benchmark", "benchmark::benchmark_main"},
		pkgName: "benchmark", imports: []importTarget{{"benchmark", "benchmark::benchmark"}, {"benchmark_main", "benchmark::benchmark_main"}}},
	{name: "catch2", dirs: []string{"catch2", "catch"}, header: "catch2/catch_all.hpp",
		packages: []string{"catch2"}, find: []string{"catch2"},
		targets: []string{"Catch2", "Catch2WithMain", "Catch2::Catch2", "Catch2::Catch2WithMain"},
		pkgName: "Catch2", imports: []importTarget{{"Catch2", "Catch2::Catch2"}, {"Catch2WithMain", "Catch2::Catch2WithMain"}}},
	{name: "doctest", dirs: []string{"doctest"}, header: "doctest/doctest.h",
		packages: []string{"doctest-dev"}, find: []string{"doctest"}, targets: []string{"doctest", "doctest::doctest"},
		pkgName: "doctest", imports: []importTarget{{"doctest", "doctest::doctest"}}},
	{name: "gflags", dirs: []string{"gflags"}, header: "gflags/gflags.h",
		packages: []string{"libgflags-dev"}, find: []string{"gflags"},
		targets: []string{"gflags", "gflags::gflags", "gflags_static", "gflags_shared"}},
}

// versionSuffix is a release suffix of a vendored directory: gtest-1.11.0,
// googletest-release-1.12.1, benchmark-main.
var versionSuffix = regexp.MustCompile(`[-_.](?:release[-_.]?)?(?:v?\d[\w.]*|main|master)$`)

// frameworkOf returns the framework a vendored directory holds, by its name.
func frameworkOf(dir string) (framework, bool) {
	base := strings.ToLower(path.Base(dir))
	for range 3 {
		base = versionSuffix.ReplaceAllString(base, "")
	}
	for _, fw := range frameworks {
		if slices.Contains(fw.dirs, base) {
			return fw, true
		}
	}
	return framework{}, false
}

// frameworkOfDownload returns the framework a configure-time download fetches, by the
// directories and the file name of its URL (cli11 fetches .../philsquared/Catch/
// releases/download/v2.13.10/catch.hpp): the last part that names one.
func frameworkOfDownload(url string) (framework, bool) {
	rest := url
	if _, after, ok := strings.Cut(url, "://"); ok {
		_, rest, _ = strings.Cut(after, "/") // not the host
	}
	parts := strings.Split(rest, "/")
	for i := len(parts) - 1; i >= 0; i-- {
		p, _, _ := strings.Cut(parts[i], "?")
		if i == len(parts)-1 {
			p = strings.TrimSuffix(p, path.Ext(p))
		}
		if fw, ok := frameworkOf(p); ok {
			return fw, true
		}
	}
	return framework{}, false
}

// frameworkByFind returns the framework a find_package() name or a target is of.
func frameworkByFind(name string) (framework, bool) {
	for _, fw := range frameworks {
		if slices.Contains(fw.find, strings.ToLower(name)) || slices.Contains(fw.targets, name) {
			return fw, true
		}
	}
	return framework{}, false
}

// purposeWords classify what a directory or an option is for, checked in order (a
// benchmark's BENCHMARK_ENABLE_TESTING is about benchmarks).
var purposeWords = []struct{ purpose, re string }{
	{"fuzzers", `fuzz`},
	{"benchmarks", `bench`},
	{"tests", `test|gmock|catch2|unittest`},
	{"examples", `example|sample|demo|tutorial`},
	{"docs", `(?:^|[^a-z])docs?(?:[^a-z]|$)|documentation|manual|doxygen|sphinx`},
}

var purposeRes = func() []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(purposeWords))
	for i, w := range purposeWords {
		out[i] = regexp.MustCompile(w.re)
	}
	return out
}()

// PurposeTests is what [Purpose] says of a test directory or option.
const PurposeTests = "tests"

// Purpose classifies text (a directory name, an option's name) as tests
// ([PurposeTests]), benchmarks, examples, docs or fuzzers, as the scripted rules do;
// "" is anything else. Packages above repair use it to tell a package's test
// directories with the same words the rules use.
func Purpose(text string) string { return purposeOf(text) }

// purposeOf classifies text (a directory path, an option's name and doc) as tests,
// benchmarks, examples, docs or fuzzers: what a build can leave out without changing
// the library or program it builds. "" is anything else.
func purposeOf(text string) string {
	t := strings.ToLower(text)
	for i, re := range purposeRes {
		if re.MatchString(t) {
			return purposeWords[i].purpose
		}
	}
	return ""
}

// Words in an option's name that say which way it switches: a system copy on
// (USE_SYSTEM_GTEST), a bundled copy off (USE_BUNDLED_GTEST), a part off (SKIP_TESTS).
var (
	systemWords   = regexp.MustCompile(`(?i)system|external|prefer_installed|find_|use_installed`)
	bundledWords  = regexp.MustCompile(`(?i)bundled|vendor|internal|builtin|embedded|download|fetch|local_|third_?party`)
	negativeWords = regexp.MustCompile(`(?i)(?:^|_)(?:skip|disable|no|without)(?:_|$)`)
)
