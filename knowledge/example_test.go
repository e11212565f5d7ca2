package knowledge_test

import (
	"context"
	"fmt"

	"github.com/eclipse-atesor/atesor-go/knowledge"
)

func ExampleDetect() {
	det, err := knowledge.Detect(context.Background(), "../testdata/trees/cmake-basic")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(det.BuildSystem, det.Confidence, det.Evidence)
	for _, d := range det.Dependencies {
		fmt.Println(d.Name, d.Evidence)
	}
	// Output:
	// cmake 0.95 CMakeLists.txt
	// zlib CMakeLists.txt:4
	// pkg-config CMakeLists.txt:6
	// curl CMakeLists.txt:7
}

func ExampleDefaultPlan() {
	p, _ := knowledge.Profile("ubuntu")
	det, _ := knowledge.Detect(context.Background(), "../testdata/trees/configure-handwritten")
	plan, tests, _ := knowledge.DefaultPlan(det, p)
	for _, ph := range plan.Phases {
		fmt.Println(ph.Name+":", ph.Commands)
	}
	fmt.Println("tests:", tests)
	// Output:
	// setup: [apt-get update && apt-get install -y build-essential pkgconf]
	// build: [./configure && make -j$(nproc)]
	// tests: [make check]
}

func ExampleCorrectInstallCommand() {
	p, _ := knowledge.Profile("debian")
	fmt.Println(knowledge.CorrectInstallCommand(p, "apt-get install -y zlib-dev openssl-dev xz-dev"))
	// Output: apt-get install -y zlib1g-dev libssl-dev liblzma-dev
}

func ExampleProfile() {
	p, _ := knowledge.Profile("ubuntu")
	fmt.Println(p.Name, p.Profile, p.SandboxKey(), p.Libc, p.Triplet)
	// Output: ubuntu debian debian-riscv64 glibc riscv64-linux-gnu
}
