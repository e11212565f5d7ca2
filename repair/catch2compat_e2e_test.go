package repair

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2ECatch2Shim runs catch2-compat with the real sandbox's locator, which installs
// the catch2 package the plan names and finds Catch2 3's catch_all.hpp, then compiles
// v2-style tests against the compat header it wrote, as a -Werror -pedantic build
// would: two units that both define CATCH_CONFIG_MAIN link into one program with one
// main, beside Catch2WithMain too, and Approx and the matchers resolve where Catch2 2
// had them; without CATCH_CONFIG_MAIN there is no main, as with Catch2 2. Measured:
// 65 s to 105 s (most of it the install), run for real.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2ECatch2Shim$' ./repair/
func TestE2ECatch2Shim(t *testing.T) {
	e2e.Long(t)
	e2e.Root(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	p, sb := openE2ESandbox(ctx, t)
	start := time.Now()
	out := "/workspace/p/t/a.cpp:1:10: fatal error: catch2/catch.hpp: No such file or directory\n"
	tree := memTree{"t/a.cpp": "#include <catch2/catch.hpp>\n", "t/CMakeLists.txt": "target_compile_definitions(a PRIVATE CATCH_CONFIG_MAIN)\n"}
	env := Env{Platform: p, Plan: &atesor.BuildPlan{Phases: []atesor.Phase{
		{Name: "setup", Commands: []string{"apt-get update && apt-get install -y build-essential cmake catch2"}},
		{Name: "build", Commands: []string{cmakeBuildLine}}}},
		Files: tree.files(), ReadFile: tree.read, Locate: SandboxLocator(sb, p, nil), RepoDir: "/workspace/p"}
	fix, why := makeCatch2Compat(ctx, Failure{Category: atesor.CategoryDependency, Message: out, Output: out, Phase: "build"}, env)
	if fix == nil {
		t.Fatalf("no fix: %s", why)
	}
	t.Logf("fix in %s: %s", time.Since(start).Round(time.Second), fix.Strategy)
	if !strings.Contains(fix.Analysis, "/usr/include/catch2/catch_all.hpp, of libcatch2-dev") {
		t.Errorf("analysis %q does not name the installed Catch2 3", fix.Analysis)
	}
	shim := base64.StdEncoding.EncodeToString([]byte(fix.Actions[0].Content))
	script := "set -e; mkdir -p /tmp/s/catch2 && cd /tmp && echo " + shim + " | base64 -d > /tmp/s/catch2/catch.hpp\n" +
		`printf '#include <catch2/catch.hpp>\nTEST_CASE("a") { CHECK(1.0 == Approx(1.0)); CHECK(Catch::Detail::Approx(2.0) == 2.0); }\n' > a.cpp` + "\n" +
		`printf '#include <catch2/catch.hpp>\nTEST_CASE("b") { REQUIRE(2 == 2); REQUIRE_THAT(std::string("hello"), Catch::StartsWith("he") && Catch::Equals("hello")); }\n' > b.cpp` + "\n" +
		"export CPATH=/tmp/s\n" +
		"g++ -std=c++14 -Wall -Wextra -pedantic -Werror -DCATCH_CONFIG_MAIN a.cpp b.cpp -lCatch2 -o two && ./two && echo TWO-UNITS-OK\n" +
		"g++ -std=c++14 -Wall -Werror -DCATCH_CONFIG_MAIN a.cpp b.cpp -lCatch2Main -lCatch2 -o withmain && ./withmain && echo WITH-MAIN-OK\n" +
		"if g++ -std=c++14 a.cpp b.cpp -lCatch2 -o nomain 2>nomain.err; then echo NOMAIN-LINKED; else grep -q 'undefined reference to .main' nomain.err && echo NO-MAIN-OK; fi\n"
	res, err := sb.Exec(ctx, atesor.Command{Line: script, Dir: "/", Timeout: 20 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("compiled in %s", time.Since(start).Round(time.Second))
	for _, want := range []string{"All tests passed (4 assertions in 2 test cases)", "TWO-UNITS-OK", "WITH-MAIN-OK", "NO-MAIN-OK"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("the sandbox's output lacks %q (exit %d):\n%s", want, res.ExitCode, res.Output)
		}
	}
}
