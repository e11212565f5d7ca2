package validate_test

import (
	"fmt"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/validate"
)

func ExampleDecode() {
	raw := []byte(`{"strategies": [{"id": 1, "description": "install zlib",
		"actions": [{"type": "command", "command": "apt-get install -y zlib1g-dev"}]}],
		"recommended_strategy_id": 1, "confidence": "high"}`)
	p, err := validate.Decode[atesor.FixProposal](raw)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(validate.FixProposal(&p, "/workspace/zlib"))
	_, err = validate.Decode[atesor.AnalysisAnswer]([]byte(`{"purpose": "x", "build_system": {"type": "make"}, "dependencies": [], "needs_custom_plan": "true"}`))
	fmt.Println(err)
	// Output:
	// <nil>
	// the analysis does not match the required JSON shape: at needs_custom_plan: must be a JSON boolean, not a string (write true or false without quotes)
}

func ExampleFixCommand() {
	for _, c := range []string{"make -j4", "make; rm -rf ~", "doas make", "touch src/main.c"} {
		fmt.Println(validate.FixCommand(c))
	}
	// Output:
	// <nil>
	// rule no-destructive-rm: rm -rf ~: rm of /root is destructive: it removes the home directory; instead, remove only named paths inside the repository, such as rm -rf build
	// rule allowed-programs: doas make: doas is not allowed; instead, commands already run as root in the sandbox; drop doas
	// rule no-touch-source: touch src/main.c: touching a source file creates an empty stub or fakes a timestamp; instead, fix the real source, or create it with content through a create_file action
}

func ExampleStripTestCommands() {
	plan := atesor.BuildPlan{Phases: []atesor.Phase{
		{Name: "build", Commands: []string{"cmake -B build && cmake --build build && cd build && ctest"}},
	}}
	kept, removed := validate.StripTestCommands(plan)
	fmt.Println(kept.Phases[0].Commands[0])
	fmt.Println(removed)
	// Output:
	// cmake -B build && cmake --build build
	// [cd build && ctest]
}

func ExampleBuildPlan() {
	plan := &atesor.BuildPlan{Phases: []atesor.Phase{
		{Name: "build", Commands: []string{"./configure --host=aarch64-linux-gnu", "make || true"}},
	}}
	fmt.Println(validate.BuildPlan(plan))
	// Output:
	// rule no-cross-compile: phase 1 (build), command 1: ./configure --host=aarch64-linux-gnu: the configure option names the machine aarch64-linux-gnu, not riscv64-linux-gnu; instead, build natively: the sandbox is a riscv64 system, so use gcc/cc and plain ./configure, cmake, meson, cargo or go
}
