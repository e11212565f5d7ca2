package repair

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestPrecompiledRule runs the rule on the real build output of Debian's picotool
// 2.1.1+dfsg after sdk-path's fix: its xip_ram_perms ExternalProject stops at "File
// /workspace/picotool/xip_ram_perms/xip_ram_perms.elf does not exist." (the repack
// dropped the prebuilt ELF), in the else() branch of xip_ram_perms/CMakeLists.txt's
// if (NOT USE_PRECOMPILED), whose if branch builds it with the Pico SDK; the
// top-level CMakeLists.txt passes USE_PRECOMPILED on, so -DUSE_PRECOMPILED=OFF.
func TestPrecompiledRule(t *testing.T) {
	const build = "cmake -DPICO_SDK_PATH=/usr/src/pico-sdk -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"
	const log = "precompiled-picotool.log"
	tree := picotoolTree(t)
	with := func(extra memTree) memTree {
		out := memTree{}
		for k, v := range tree {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	const sub = "if (NOT USE_PRECOMPILED)\n  add_executable(x x.c)\nelse()\n  message(\"prebuilt\")\n  configure_file(${CMAKE_CURRENT_LIST_DIR}/xip_ram_perms.elf out.elf COPYONLY)\nendif()\n"
	// The log names line 48: sub's configure_file() is its line 5.
	pad := strings.Repeat("\n", 43)
	tests := []struct {
		name     string
		plan     string
		tree     memTree
		repo     string
		planLine string
		none     string
	}{
		{name: "picotool: the stripped xip_ram_perms.elf is built", plan: build, tree: tree, repo: "/workspace/picotool",
			planLine: "cmake -DUSE_PRECOMPILED=OFF -DPICO_SDK_PATH=/usr/src/pico-sdk -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"},
		{name: "the tarball has the file: no fix", plan: build, tree: with(memTree{"xip_ram_perms/xip_ram_perms.elf": "\x7fELF"}), repo: "/workspace/picotool",
			none: "is in the source tree"},
		{name: "another repository: no fix", plan: build, tree: tree, repo: "/workspace/other", none: "outside the source tree"},
		{name: "the other branch builds nothing: no fix", plan: build, repo: "/workspace/picotool",
			tree: with(memTree{"xip_ram_perms/CMakeLists.txt": pad + strings.Replace(sub, "add_executable(x x.c)", "message(\"none\")", 1)}),
			none: "not in a branch of a PRECOMPILED/PREBUILT switch"},
		{name: "a switch of another name: no fix", plan: build, repo: "/workspace/picotool",
			tree: with(memTree{"xip_ram_perms/CMakeLists.txt": pad + strings.Replace(sub, "NOT USE_PRECOMPILED", "NOT USE_FAST", 1)}),
			none: "not in a branch of a PRECOMPILED/PREBUILT switch"},
		{name: "a subproject's switch the top level does not pass: no fix", plan: build, repo: "/workspace/picotool",
			tree: memTree{"CMakeLists.txt": "project(p)\n", "xip_ram_perms/CMakeLists.txt": readLog(t, "cmake/picotool-2.1.1-xip_ram_perms.txt")},
			none: "that the top-level CMakeLists.txt does not name"},
		{name: "already configured so: no fix", plan: "cmake -DUSE_PRECOMPILED=OFF -S . -B build && cmake --build build", tree: tree, repo: "/workspace/picotool",
			none: "already configures with -DUSE_PRECOMPILED=OFF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := buildFailure(t, log, tt.plan)
			if claims := Claims(f, nil); !slices.Contains(claims, precompiledRuleName) {
				t.Fatalf("claims %v", claims)
			}
			env := Env{Platform: debian(t), Plan: defaultPlan(tt.plan), Files: tt.tree.files(), ReadFile: tt.tree.read, RepoDir: tt.repo}
			fix, why := makePrecompiledOff(context.Background(), f, env)
			if !wantFix(t, fix, why, tt.none) {
				return
			}
			wantBuildLine(t, fix, tt.planLine)
		})
	}
}

func TestPrebuiltGate(t *testing.T) {
	tests := []struct {
		name, src  string
		line       int
		gate, want string
	}{
		{"else of NOT", "if(NOT USE_PRECOMPILED)\nadd_executable(a a.c)\nelse()\nconfigure_file(a.elf b)\nendif()\n", 4, "USE_PRECOMPILED", "OFF"},
		{"if of the switch", "if(USE_PREBUILT_FW)\nconfigure_file(a.bin b)\nelse()\nadd_custom_command(OUTPUT a.bin COMMAND x)\nendif()\n", 2, "USE_PREBUILT_FW", "OFF"},
		{"else of the switch", "if(BUILD_PRECOMPILED_NO)\nadd_library(a a.c)\nelse()\nconfigure_file(a.elf b)\nendif()\n", 4, "BUILD_PRECOMPILED_NO", "ON"},
		{"nested: the innermost switch", "if(X)\nif(NOT USE_PRECOMPILED)\nadd_executable(a a.c)\nelse()\nconfigure_file(a.elf b)\nendif()\nendif()\n", 5, "USE_PRECOMPILED", "OFF"},
		{"an elseif: none", "if(NOT USE_PRECOMPILED)\nadd_executable(a a.c)\nelseif(Y)\nelse()\nconfigure_file(a.elf b)\nendif()\n", 5, "", ""},
		{"no else: none", "if(USE_PRECOMPILED)\nconfigure_file(a.elf b)\nendif()\n", 2, "", ""},
		{"a compound condition: none", "if(NOT USE_PRECOMPILED AND X)\nadd_executable(a a.c)\nelse()\nconfigure_file(a.elf b)\nendif()\n", 4, "", ""},
	}
	for _, tt := range tests {
		cmds, err := parseCMake(tt.src)
		if err != nil {
			t.Fatal(err)
		}
		gate, val, ok := prebuiltGate(cmds, tt.line)
		if gate != tt.gate || val != tt.want || ok != (tt.gate != "") {
			t.Errorf("%s: prebuiltGate = %q, %q, %v; want %q, %q", tt.name, gate, val, ok, tt.gate, tt.want)
		}
	}
}
