package validate

import (
	"path"
	"strings"
)

// This file holds the deny rules for tools whose output file or working directory is an
// option: compilers and binutils, downloaders, compressors, and build tools run with -C.

var (
	wgetSpec  = optSpec{short: "OPoa", long: []string{"--output-document", "--directory-prefix", "--output-file", "--append-output"}}
	curlSpec  = optSpec{short: "oDcKTuXHdAeEFx", long: []string{"--output", "--output-dir", "--dump-header", "--cookie-jar", "--trace", "--trace-ascii", "--stderr", "--config"}}
	stripSpec = optSpec{short: "oRKNI", long: []string{"--output-file"}}
	zstdSpec  = optSpec{short: "oD", long: []string{"--output-dir-flat", "--output-dir-mirror"}}
	autoSpec  = optSpec{short: "oIBW", long: []string{"--output", "--include", "--prepend-include", "--warnings"}}
	buildSpec = optSpec{short: "CfjlIWo", long: []string{"--directory", "--file", "--makefile", "--jobs", "--load-average", "--include-dir", "--what-if", "--old-file"}}
)

// compilers are the programs whose -o names the file they write.
var compilers = map[string]bool{
	"gcc": true, "g++": true, "cc": true, "c++": true, "clang": true, "clang++": true, "cpp": true,
	"gfortran": true, "ld": true, "ld.bfd": true, "ld.gold": true, "ld.lld": true, "as": true,
	"rustc": true, "go": false,
}

// compressors change their operands in place unless they write to standard output.
var compressors = map[string]bool{
	"gzip": true, "gunzip": true, "xz": true, "unxz": true, "bzip2": true, "bunzip2": true,
	"zstd": true, "unzstd": true, "lzma": true, "unlzma": true, "lz4": true, "pigz": true,
}

// denyOutputs checks where the tools above write. handled is false for other programs.
func denyOutputs(c call, name string, args []arg, strict bool) (handled bool, err error) {
	switch {
	case compilers[name]:
		var outs []arg
		for i, a := range args {
			v := a.val()
			switch {
			case v == "-o" && i+1 < len(args):
				outs = append(outs, args[i+1])
			case strings.HasPrefix(v, "-o") && len(v) > 2:
				outs = append(outs, arg{alts: []string{v[2:]}, dynamic: a.dynamic})
			case strings.HasPrefix(v, "--output="):
				outs = append(outs, arg{alts: []string{strings.TrimPrefix(v, "--output=")}, dynamic: a.dynamic})
			}
		}
		return true, checkWrites(c, outs, strict)
	case compressors[name]:
		pa := parseArgs(args, zstdSpec, false)
		if pa.has("c", "--stdout", "--to-stdout", "t", "--test", "l", "--list") {
			return true, nil
		}
		outs := append(pa.values("-o", "--output-dir-flat", "--output-dir-mirror"), pa.operands...)
		return true, checkWrites(c, outs, strict)
	}
	switch name {
	case "strip", "objcopy", "ranlib", "ar", "elfedit", "patchelf", "chrpath":
		pa := parseArgs(args, stripSpec, false)
		outs := pa.values("-o", "--output-file")
		ops := pa.operands
		if name == "ar" && len(ops) > 0 && !strings.HasPrefix(args[0].val(), "-") {
			ops = ops[1:] // the key letters: ar rcs lib.a x.o
		}
		switch name {
		case "objcopy":
			if len(ops) >= 2 {
				outs = append(outs, ops[1])
			} else {
				outs = append(outs, ops...)
			}
		case "ar":
			if len(ops) > 0 {
				outs = append(outs, ops[0])
			}
		default:
			if len(outs) == 0 {
				outs = append(outs, ops...)
			}
		}
		return true, checkWrites(c, outs, strict)
	case "wget":
		pa := parseArgs(args, wgetSpec, false)
		return true, checkWrites(c, pa.values("-O", "--output-document", "-P", "--directory-prefix", "-o", "--output-file", "-a", "--append-output"), strict)
	case "curl":
		pa := parseArgs(args, curlSpec, false)
		return true, checkWrites(c, pa.values("-o", "--output", "--output-dir", "-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii", "--stderr"), strict)
	case "autoconf", "autoheader", "autom4te", "m4":
		return true, checkWrites(c, parseArgs(args, autoSpec, false).values("-o", "--output"), strict)
	case "rsync", "scp":
		ops := parseArgs(args, optSpec{short: "e", long: []string{"--rsh"}}, false).operands
		if len(ops) >= 2 {
			return true, checkWrites(c, ops[len(ops)-1:], strict)
		}
		return true, nil
	case "make", "gmake", "bmake", "ninja", "samu", "meson":
		pa := parseArgs(args, buildSpec, false)
		for _, d := range pa.values("-C", "--directory") {
			for _, v := range d.alts {
				if isSystemPath(v, strict) {
					return true, reject(ruleSystemWrite, c.text(), name+" -C "+shown(v)+" runs the build in a system directory", "run the build in the repository, such as make -C build")
				}
				if strict && escapesRepo(v) {
					return true, reject(rulePath, c.text(), name+" -C "+shown(v)+" leaves the repository", "each command starts in the repository root; use a directory inside it, such as make -C build")
				}
			}
		}
		return true, nil
	}
	return false, nil
}

// escapesRepo reports whether a directory operand leaves the repository: a .. escape, a
// path only known at run time, or an absolute path outside /tmp and /workspace.
func escapesRepo(v string) bool {
	if strings.Contains(v, dyn) {
		return true
	}
	if strings.HasPrefix(v, "/") {
		return !strings.HasPrefix(v, "/tmp/") && !strings.HasPrefix(v, "/workspace/") && v != "/tmp"
	}
	c := path.Clean(v)
	return c == ".." || strings.HasPrefix(c, "../")
}
