package sandbox_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/e2e"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// fidelitySources are compiles at the edges of what a native compiler backend does
// differently from the emulated one if its surroundings are not the same: converting
// the source and execution character sets (iconv modules of the C library it runs on),
// link-time optimisation (lto1 and the linker plugin), the intermediate files of
// -save-temps, and GCC plugins, which the native backend cannot load. The LTO objects get -frandom-seed because GCC names their sections with a
// random number otherwise: two emulated compiles of one file differ too.
var fidelitySources = map[string][]byte{
	// "日本語" in Shift-JIS (CP932), the encoding of many Japanese sources.
	"sjis.c":   append(append([]byte("const char *greeting = \""), 0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea), []byte("\";\n")...),
	"ebcdic.c": []byte("const char *word = \"riscv\";\nconst int wide = L'x';\n"),
	"lto_a.c":  []byte("int twice(int x);\nint main(int argc, char **argv) { (void)argv; return twice(argc) == 2 ? 0 : 1; }\n"),
	"lto_b.c":  []byte("int twice(int x) { return 2 * x; }\n"),
	"temps.c":  []byte("#include <stdio.h>\n#define GREETING \"hello\"\nint main(void) { puts(GREETING); return 0; }\n"),
	"build.sh": []byte(`set -e
mkdir -p out
gcc -O2 -finput-charset=cp932 -fexec-charset=UTF-8 -c sjis.c -o out/sjis.o
gcc -O2 -fexec-charset=IBM1047 -fwide-exec-charset=UTF-32LE -c ebcdic.c -o out/ebcdic.o
gcc -O2 -flto -frandom-seed=lto_a -c lto_a.c -o out/lto_a.o
gcc -O2 -flto -frandom-seed=lto_b -c lto_b.c -o out/lto_b.o
gcc -O2 -flto out/lto_a.o out/lto_b.o -o out/lto
cd out && gcc -O2 -save-temps -c ../temps.c -o temps.o && cd ..
sha256sum out/* | sort -k2
`),
	// A GCC plugin: a riscv64 shared object built against the sandbox's compiler, which
	// only the emulated cc1 and cc1plus can load, so the accelerated toolchain runs those
	// compiles emulated. The plugin writes a file when it is loaded, naming its argument.
	"plugin.cc": []byte(`#include <gcc-plugin.h>
#include <plugin-version.h>
#include <cstdio>
int plugin_is_GPL_compatible;
int plugin_init(struct plugin_name_args *info, struct plugin_gcc_version *version) {
	if (!plugin_default_version_check(version, &gcc_version))
		return 1;
	FILE *f = fopen("plugin.txt", "a");
	if (!f)
		return 1;
	fprintf(f, "%s loaded, %d arguments, %s=%s\n", info->base_name, info->argc,
		info->argc ? info->argv[0].key : "-", info->argc ? info->argv[0].value : "-");
	return fclose(f) == 0 ? 0 : 1;
}
`),
	"plug.c":  []byte("int answer(void) { return 42; }\n"),
	"plug.cc": []byte("#include <vector>\nint count() { std::vector<int> v{1, 2, 3}; return (int)v.size(); }\n"),
	"plugin.sh": []byte(`set -e
mkdir -p plug
g++ -O2 -shared -fPIC -fno-rtti -I"$(gcc -print-file-name=plugin)/include" plugin.cc -o plug/plugin.so
cd plug
gcc -O2 -fplugin=./plugin.so -fplugin-arg-plugin-lang=c -c ../plug.c -o plug_c.o
g++ -O2 -fplugin=./plugin.so -fplugin-arg-plugin-lang=cxx -c ../plug.cc -o plug_cc.o
gcc -O2 -flto -frandom-seed=plug_lto -fplugin=./plugin.so -fplugin-arg-plugin-lang=lto -c ../lto_b.c -o plug_lto_b.o
gcc -O2 -flto -fplugin=./plugin.so -fplugin-arg-plugin-lang=lto ../out/lto_a.o plug_lto_b.o -o plug_lto
cd ..
sha256sum plug/* | sort -k2
cat plug/plugin.txt
`),
}

// TestE2EAccelFidelityAtTheEdges compiles the edge cases with the accelerated and the
// emulated toolchain and requires the same bytes of every output: a compile that only
// the emulated compiler can do (a charset the native one cannot convert) breaks the
// accelerator's promise as surely as different output does.
func TestE2EAccelFidelityAtTheEdges(t *testing.T) {
	needE2E(t)
	e2e.Short(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	src := t.TempDir()
	for name, data := range fidelitySources {
		if err := os.WriteFile(filepath.Join(src, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	build := func(accel bool) (string, sandbox.Toolchain) {
		sb := newE2ERootfs(t, ctx, sandbox.WithAccel(accel), sandbox.WithRepo("edges"))
		defer sb.Close()
		if err := sb.CopyIn(ctx, src, "/workspace/edges"); err != nil {
			t.Fatal(err)
		}
		var sums string
		for _, c := range []atesor.Command{
			{Line: "sh build.sh", Timeout: 20 * time.Minute},
			// The plugin headers of the installed compiler, from the archive.
			{Line: "apt-get install -y --no-install-recommends gcc-14-plugin-dev", Network: true, Dir: "/", Timeout: 30 * time.Minute},
			{Line: "sh plugin.sh", Timeout: 20 * time.Minute},
		} {
			res, err := sb.Exec(ctx, c)
			if err != nil || !res.OK() {
				t.Fatalf("accel=%t: %q: %v exit %d\n%s", accel, c.Line, err, res.ExitCode, lastBytes(res.Output, 3000))
			}
			if !c.Network {
				sums += res.Stdout
			}
		}
		return strings.TrimSpace(sums), sb.Toolchain()
	}
	accelSums, accelTC := build(true)
	emulSums, emulTC := build(false)
	if !accelTC.C.Accelerated {
		t.Fatalf("the accelerated run's C toolchain was emulated: %s", accelTC.C.Reason)
	}
	if emulTC.C.Accelerated {
		t.Fatalf("the run without acceleration was accelerated: %s", emulTC)
	}
	a, e := strings.Split(accelSums, "\n"), strings.Split(emulSums, "\n")
	if len(e) < 8 {
		t.Fatalf("the emulated build made only %d outputs:\n%s", len(e), emulSums)
	}
	// Both compiles loaded the plugin: the accelerated run's fell back to the emulated
	// programs (a native cc1 cannot load a riscv64 plugin and stops with an error).
	for _, line := range []string{"plugin loaded, 1 arguments, lang=c\n", "plugin loaded, 1 arguments, lang=cxx", "plugin loaded, 1 arguments, lang=lto"} {
		if !strings.Contains(accelSums, line) || !strings.Contains(emulSums, line) {
			t.Errorf("the plugin did not report %q:\naccelerated:\n%s\nemulated:\n%s", line, accelSums, emulSums)
		}
	}
	if len(accelTC.Changes) > 0 {
		t.Errorf("installing the plugin headers changed the toolchain: %v", accelTC.Changes)
	}
	if accelSums != emulSums {
		t.Errorf("the outputs differ:\naccelerated:\n%s\nemulated:\n%s", accelSums, emulSums)
	}
	t.Logf("%d outputs equal accelerated and emulated (%d lines)", len(e), len(a))
}
