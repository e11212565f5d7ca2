package accel

// The compilers behind a wrapper: a compile the native backend cannot serve runs the
// emulated program instead.

import "strings"

// pluginCompilers are the GCC programs that load GCC plugins (-fplugin=FILE or NAME):
// a plugin is a riscv64 shared object built against the riscv64 compiler, which a
// native x86_64 compiler cannot load. Each is laid out as a wrapper at the program's
// own path that runs the native build, or the emulated one for a compile that loads a
// plugin. The other swapped programs load no target code: collect2 and lto-wrapper only
// run other programs, and the LTO plugin the linker loads is native with the linker.
var pluginCompilers = map[string]bool{"cc1": true, "cc1plus": true, "lto1": true}

// wrapperShell is the amd64 tree's program that interprets the wrappers. A native shell
// keeps a compile's added cost to one short native process; it runs only the wrappers
// and is at a path no build looks at (the sandbox's own /bin/sh stays emulated, as a
// configure script may ask it about the machine).
const wrapperShell = "/usr/bin/dash"

// wrapperDir is the sandbox directory of the wrappers' shell and the programs they
// choose from: below GCC's own directory, where no package puts files.
func wrapperDir(major string) string {
	return "/usr/libexec/gcc/riscv64-linux-gnu/" + major + "/accel"
}

// wrapper names the sandbox paths of one compiler's wrapper.
type wrapper struct {
	name     string // cc1
	shell    string // the native shell that runs the wrapper
	native   string // the native cross build
	emulated string // the root filesystem's riscv64 program
}

func wrapperPaths(major, name string) wrapper {
	dir := wrapperDir(major)
	return wrapper{name: name, shell: dir + "/sh", native: dir + "/native/" + name, emulated: dir + "/emulated/" + name}
}

// wrapperScript is the program laid at the compiler's path. It runs the native compiler
// with the same arguments, or the emulated one when an argument (or a line of a
// response file given as @FILE) loads a plugin. Both get the arguments and the
// environment unchanged (dash exports the environment as it found it, adding PWD only
// as the directory the compiler would compute itself), and the program name the
// compiler prints in its messages is the same file name.
func wrapperScript(w wrapper) []byte {
	const text = `#!SHELL
# NAME of atesor's accelerated toolchain: the native cross build compiles, except a
# compile that loads a GCC plugin, a riscv64 shared object only the emulated NAME
# can load: that one runs the emulated program.
e=
for a do
	case $a in
	-fplugin=*) e=1 ;;
	@*) if [ -r "${a#@}" ]; then
		while IFS= read -r l || [ -n "$l" ]; do
			case $l in *-fplugin=*) e=1; break ;; esac
		done <"${a#@}"
	fi ;;
	esac
	[ -n "$e" ] && break
done
[ -n "$e" ] && exec EMULATED "$@"
exec NATIVE "$@"
`
	return []byte(strings.NewReplacer("SHELL", w.shell, "NAME", w.name, "EMULATED", w.emulated, "NATIVE", w.native).Replace(text))
}
