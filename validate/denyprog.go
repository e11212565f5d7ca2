package validate

import (
	"strings"

	"github.com/eclipse-atesor/atesor-go/internal/shellwords"
)

const (
	insteadSystem = "write only inside the repository (or /tmp); get system files from the distro package manager"
	insteadRm     = "remove only named paths inside the repository, such as rm -rf build"
)

var (
	cpSpec      = optSpec{short: "tS", long: []string{"--target-directory", "--suffix"}}
	installSpec = optSpec{short: "tSgmo", long: []string{"--target-directory", "--suffix", "--group", "--mode", "--owner"}}
	touchSpec   = optSpec{short: "dtr", long: []string{"--date", "--reference"}}
	truncSpec   = optSpec{short: "sr", long: []string{"--size", "--reference"}}
	mkdirSpec   = optSpec{short: "m", long: []string{"--mode"}}
	patchSpec   = optSpec{short: "dDoiBbFpVrYzg", long: []string{"--directory", "--output", "--input", "--strip", "--reject-file", "--prefix", "--suffix", "--fuzz", "--ifdef", "--version-control", "--basename-prefix", "--get"}}
	tarSpec     = optSpec{short: "CfTXIbFgHLNVK", long: []string{"--directory", "--file", "--files-from", "--exclude-from", "--use-compress-program", "--to-command", "--info-script", "--new-volume-script", "--rsh-command", "--checkpoint-action", "--owner", "--group", "--mode", "--transform", "--strip-components", "--exclude", "--format", "--xform", "--newer", "--after-date", "--label", "--suffix", "--backup", "--blocking-factor", "--record-size", "--tape-length", "--volno-file", "--index-file", "--exclude-tag", "--null", "--quoting-style", "--sort", "--mtime", "--numeric-owner", "--level", "--listed-incremental", "--atime-preserve", "--occurrence", "--warning", "--hole-detection", "--checkpoint", "--xattrs-include", "--xattrs-exclude"},
		flags: []string{"--extract", "--get", "--create", "--list", "--append", "--update", "--diff", "--compare", "--delete", "--concatenate", "--catenate", "--test-label",
			"--absolute-names", "--verbose", "--gzip", "--gunzip", "--ungzip", "--xz", "--bzip2", "--zstd", "--lzip", "--lzma", "--lzop", "--compress", "--uncompress", "--auto-compress",
			"--keep-old-files", "--keep-newer-files", "--overwrite", "--overwrite-dir", "--unlink-first", "--recursive-unlink", "--preserve-permissions", "--same-permissions", "--no-same-owner", "--same-owner",
			"--no-same-permissions", "--touch", "--verify", "--dereference", "--hard-dereference", "--one-file-system", "--totals", "--show-transformed-names", "--wildcards", "--no-wildcards", "--anchored",
			"--ignore-zeros", "--ignore-failed-read", "--to-stdout", "--stdout", "--interactive", "--confirmation", "--no-recursion", "--recursion", "--sparse", "--multi-volume", "--xattrs", "--no-xattrs", "--acls", "--selinux", "--help", "--version", "--usage", "--exclude-vcs", "--exclude-backups", "--exclude-caches", "--preserve-order", "--same-order", "--remove-files", "--skip-old-files", "--delay-directory-restore", "--utc", "--full-time", "--block-number", "--check-links", "--no-null", "--posix", "--old-archive", "--portability", "--seek", "--no-seek"}}
	unzipSpec = optSpec{short: "dx"}
	aptSpec   = optSpec{short: "octa", long: []string{"--option", "--config-file", "--target-release", "--host-architecture"}}
	apkSpec   = optSpec{short: "Xp", long: []string{"--repository", "--root", "--arch", "--cache-dir", "--keys-dir", "--repositories-file", "--virtual"}}
	chmodSpec = optSpec{long: []string{"--reference"}}
)

// dangerousPrograms change disks, mounts, power or kill every process.
var dangerousPrograms = map[string]string{
	"fdisk": "it partitions disks", "sfdisk": "it partitions disks", "cfdisk": "it partitions disks",
	"parted": "it partitions disks", "wipefs": "it wipes disks", "mkswap": "it formats disks",
	"mount": "it changes mounts", "umount": "it changes mounts", "reboot": "it reboots the system",
	"shutdown": "it stops the system", "halt": "it stops the system", "poweroff": "it stops the system",
	"telinit": "it changes the run level", "killall": "it kills processes by name",
	"killall5": "it kills every process", "pkill": "it kills processes by name",
}

func denyProgram(c call, depth int, strict bool) error {
	name := base(c.prog())
	args := c.args[1:]
	if why, ok := dangerousPrograms[name]; ok {
		return reject(ruleDenied, c.text(), "the command is not allowed: "+why, "build and fix the package without touching the system")
	}
	if strings.HasPrefix(name, "mkfs") {
		return reject(ruleDenied, c.text(), "the command is not allowed: it formats disks", "build and fix the package without touching the system")
	}
	if handled, err := denyOutputs(c, name, args, strict); handled {
		return err
	}
	if err := denyInterpreter(c, name, args); err != nil {
		return err
	}
	switch name {
	case "awk", "gawk", "mawk", "nawk", "busybox-awk":
		return denyAwk(c, args)
	case "rm", "unlink", "shred", "srm":
		return denyRm(c, args)
	case "git":
		return denyGit(c, args, strict)
	case "apt-get", "apt", "aptitude":
		return denyApt(c, args)
	case "apk":
		pa := parseArgs(args, apkSpec, false)
		if pa.has("--allow-untrusted") {
			return reject(ruleDenied, c.text(), "--allow-untrusted installs unsigned packages", "install signed packages from the distro repositories with apk add <name>")
		}
		if len(pa.operands) > 0 && pa.operands[0].val() == "del" {
			return rejectRemoval(c)
		}
		if len(pa.operands) > 0 && pa.operands[0].val() == "add" {
			return denyPackageFiles(c, pa.operands[1:])
		}
	case "dpkg-deb":
		return denyDpkgDeb(c, args, strict)
	case "cpio", "bsdtar", "7z", "7za":
		return denyUnpack(c, name, args, strict)
	case "dpkg":
		if err := denyDpkgDeb(c, args, strict); err != nil {
			return err
		}
		for _, a := range args {
			v := a.val()
			if v == "--remove" || v == "--purge" || strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.ContainsAny(v, "rP") {
				return rejectRemoval(c)
			}
			if v == "--install" || v == "--unpack" || v == "--force-all" || strings.HasPrefix(v, "--root") || strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.Contains(v, "i") {
				return reject(ruleDenied, c.text(), "dpkg -i installs a package file that did not come from the distro archive", "install packages by name with apt-get install -y <name>")
			}
		}
	case "rpm":
		for _, a := range args {
			v := a.val()
			if v == "--erase" || strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.Contains(v, "e") {
				return rejectRemoval(c)
			}
		}
	case "yum", "dnf", "microdnf", "zypper", "snap":
		pa := parseArgs(args, optSpec{}, true)
		if len(pa.operands) > 0 {
			switch pa.operands[0].val() {
			case "remove", "erase", "autoremove", "rm", "purge":
				return rejectRemoval(c)
			}
		}
	case "pacman":
		for _, a := range args {
			if v := a.val(); v == "--remove" || strings.HasPrefix(v, "-R") {
				return rejectRemoval(c)
			}
		}
	case "touch":
		pa := parseArgs(args, touchSpec, false)
		for _, t := range pa.operands {
			for _, v := range t.alts {
				if isSourceFile(v) {
					return reject(ruleTouchSource, c.text(), "touching a source file creates an empty stub or fakes a timestamp", "fix the real source, or create it with content through a create_file action")
				}
			}
		}
		return checkWrites(c, pa.operands, strict)
	case "cp", "install", "mv", "ln":
		return denyCopy(c, name, args, strict)
	case "tee":
		return checkWrites(c, parseArgs(args, optSpec{}, false).operands, strict)
	case "truncate":
		return checkWrites(c, parseArgs(args, truncSpec, false).operands, strict)
	case "chmod", "chown", "chgrp", "chattr", "setfacl":
		return checkWrites(c, parseArgs(args, chmodSpec, false).operands, strict)
	case "mkdir":
		return checkWrites(c, parseArgs(args, mkdirSpec, false).operands, strict)
	case "dd":
		var outs []arg
		for _, a := range args {
			if strings.HasPrefix(a.val(), "of=") {
				outs = append(outs, arg{alts: []string{strings.TrimPrefix(a.val(), "of=")}, dynamic: a.dynamic})
			}
		}
		return checkWrites(c, outs, strict)
	case "patch":
		pa := parseArgs(args, patchSpec, false)
		targets := pa.values("-d", "--directory", "-o", "--output", "-r", "--reject-file")
		if len(pa.operands) > 0 {
			targets = append(targets, pa.operands[0])
		}
		return checkWrites(c, targets, strict)
	case "tar":
		return denyTar(c, args, strict)
	case "unzip":
		dirs := parseArgs(args, unzipSpec, false).values("-d")
		if err := checkWrites(c, dirs, strict); err != nil {
			return err
		}
		return holdToRepo(c, "unzip", dirs)
	case "sed":
		return denySed(c, args, strict)
	case "cmake":
		return denyCMakeE(c, args, depth, strict)
	case "find":
		return denyFind(c, args, depth, strict)
	case "kill":
		if len(args) > 0 && args[len(args)-1].val() == "-1" {
			return reject(ruleDenied, c.text(), "kill -1 kills every process", "let the build finish or fail by itself")
		}
	}
	return nil
}

func rejectRemoval(c call) error {
	return reject(rulePkgRemove, c.text(), "removing packages breaks the toolchain and other packages", "install what is missing instead; never remove packages")
}

func checkWrites(c call, targets []arg, strict bool) error {
	for _, t := range targets {
		for _, v := range t.alts {
			if isSystemPath(v, strict) {
				return reject(ruleSystemWrite, c.text(), "it writes to the system path "+shown(v), insteadSystem)
			}
			if err := denyWriteThrough(c, v); err != nil {
				return err
			}
		}
	}
	return nil
}

func denyRm(c call, args []arg) error {
	pa := parseArgs(args, optSpec{}, false)
	if pa.flags["--no-preserve-root"] {
		return reject(ruleRmRoot, c.text(), "--no-preserve-root removes the root file system", insteadRm)
	}
	for _, t := range pa.operands {
		for _, v := range t.alts {
			if why := rmTargetProblem(v); why != "" {
				return reject(ruleRmRoot, c.text(), "rm of "+shown(v)+" is destructive: "+why, insteadRm)
			}
			if l, ok := c.fx.throughLink(v); ok && repoKey(v) != l {
				return reject(ruleTwoStep, c.text(), "it deletes through the link "+l+" to "+shown(c.fx.links[l])+", outside the repository", insteadRm)
			}
		}
	}
	return nil
}

func denyApt(c call, args []arg) error {
	pa := parseArgs(args, aptSpec, false)
	if len(pa.operands) == 0 {
		return nil
	}
	sub := pa.operands[0]
	if !sub.static() {
		return reject(ruleLiteralProgram, c.text(), "the package manager subcommand is only known at run time", "write the subcommand literally")
	}
	for _, a := range args {
		if v := a.val(); insecureAptOption(v) {
			return reject(ruleDenied, c.text(), v+" installs packages that are not verified", "install verified packages with apt-get install -y <name>")
		}
	}
	for _, o := range pa.values("-o", "--option", "-c", "--config-file") {
		if why := aptOptionProblem(o); why != "" {
			return reject(ruleDenied, c.text(), "the apt option "+shown(o.val())+" "+why, "use apt-get install -y <name> without that option")
		}
	}
	switch sub.val() {
	case "remove", "purge", "autoremove", "autopurge":
		return rejectRemoval(c)
	case "install", "reinstall":
		for _, p := range pa.operands[1:] {
			if v := p.val(); strings.HasSuffix(v, "-") && !strings.HasPrefix(v, "-") {
				return reject(rulePkgRemove, c.text(), "a package name ending in - ("+v+") removes that package", "install packages by their plain names")
			}
		}
		return denyPackageFiles(c, pa.operands[1:])
	}
	return nil
}

// aptOptionProblem says why an apt -o option (or -c file) is refused: hooks that run
// commands, skipped verification, another root or dpkg options beyond --force-conf*.
func aptOptionProblem(o arg) string {
	if !o.static() {
		return "is only known at run time"
	}
	v := strings.ToLower(o.val())
	if !strings.Contains(v, "::") && !strings.Contains(v, "=") {
		return "reads a configuration file, which can run commands"
	}
	key, val, _ := strings.Cut(v, "=")
	switch {
	case strings.Contains(key, "invoke"), strings.Contains(key, "pre-install-pkgs"), strings.Contains(key, "post-install-pkgs"):
		return "runs commands"
	case strings.Contains(key, "allowunauthenticated"), strings.Contains(key, "allowinsecure"), strings.Contains(key, "allowdowngradetoinsecure"),
		strings.Contains(key, "trusted"):
		return "skips package verification"
	case strings.HasPrefix(key, "dir"), strings.Contains(key, "rootdir"), strings.Contains(key, "::bin"), strings.Contains(key, "::path"):
		return "changes where apt installs or which programs it runs"
	case strings.Contains(key, "dpkg::options"):
		if !strings.HasPrefix(strings.Trim(val, `"'`), "--force-conf") {
			return "passes a dpkg option other than --force-conf*"
		}
	}
	return ""
}

// denyPackageFiles refuses package files and URLs in an install: their maintainer
// scripts would run as root without the archive's signature.
func denyPackageFiles(c call, names []arg) error {
	for _, n := range names {
		for _, v := range n.alts {
			low := strings.ToLower(v)
			if strings.HasPrefix(v, "/") || strings.HasPrefix(v, ".") || strings.HasPrefix(v, "~") || strings.Contains(v, "://") ||
				strings.HasSuffix(low, ".deb") || strings.HasSuffix(low, ".udeb") || strings.HasSuffix(low, ".apk") || strings.Contains(v, dyn) {
				return reject(ruleDenied, c.text(), shown(v)+" is a package file or an unknown name, not a package of the distro archive", "install packages by name, such as apt-get install -y zlib1g-dev or apk add zlib-dev")
			}
		}
	}
	return nil
}

func denyCopy(c call, name string, args []arg, strict bool) error {
	spec := cpSpec
	if name == "install" {
		spec = installSpec
	}
	pa := parseArgs(args, spec, false)
	var dests []arg
	switch {
	case pa.has("-t", "--target-directory"):
		dests = pa.values("-t", "--target-directory")
	case name == "install" && pa.has("d", "--directory"):
		dests = pa.operands
	case len(pa.operands) >= 2:
		dests = pa.operands[len(pa.operands)-1:]
	}
	if err := checkWrites(c, dests, strict); err != nil {
		return err
	}
	if name == "mv" {
		srcs := pa.operands
		if !pa.has("-t", "--target-directory") && len(srcs) > 0 {
			srcs = srcs[:len(srcs)-1]
		}
		for _, s := range srcs {
			for _, v := range s.alts {
				if isSystemPath(v, strict) {
					return reject(ruleSystemWrite, c.text(), "it moves the system path "+shown(v)+" away", insteadSystem)
				}
				if why := rmTargetProblem(v); why != "" && !strings.Contains(v, dyn) && !strings.HasPrefix(v, "/") {
					return reject(ruleRmRoot, c.text(), "mv of "+shown(v)+" is destructive: "+why, "move single named files inside the repository")
				}
			}
		}
	}
	return nil
}

func denyTar(c call, args []arg, strict bool) error {
	pa := parseArgs(args, tarSpec, false)
	if pa.has("--to-command", "--info-script", "--new-volume-script", "--rsh-command", "-F") {
		return reject(ruleDenied, c.text(), "this tar option runs another command", "extract with plain tar -xf <archive>")
	}
	for _, a := range pa.values("--checkpoint-action") {
		if strings.Contains(a.val(), "exec") {
			return reject(ruleDenied, c.text(), "--checkpoint-action=exec runs another command", "extract with plain tar -xf <archive>")
		}
	}
	for _, a := range pa.values("-I", "--use-compress-program") {
		if !a.static() || strings.ContainsAny(a.val(), " /;|&$`") {
			return reject(ruleDenied, c.text(), "the compress program must be a plain program name", "use -z, -J or --zstd")
		}
	}
	extract := pa.has("x", "--extract", "--get")
	if !extract && len(args) > 0 && !strings.HasPrefix(args[0].val(), "-") && strings.Contains(args[0].val(), "x") {
		extract = true
	}
	if !extract {
		return nil
	}
	if pa.has("P", "--absolute-names") {
		return reject(ruleSystemWrite, c.text(), "extracting with absolute names can overwrite system files", "extract without -P into the repository or /tmp")
	}
	if err := checkWrites(c, pa.values("-C", "--directory"), strict); err != nil {
		return err
	}
	return holdToRepo(c, "tar", pa.values("-C", "--directory"))
}

func denyCMakeE(c call, args []arg, depth int, strict bool) error {
	if len(args) < 2 || args[0].val() != "-E" {
		return nil
	}
	tool := args[1].val()
	rest := args[2:]
	ops := parseArgs(rest, optSpec{}, false).operands
	switch tool {
	case "rm", "remove", "remove_directory":
		for _, t := range ops {
			for _, v := range t.alts {
				if why := rmTargetProblem(v); why != "" {
					return reject(ruleRmRoot, c.text(), "cmake -E "+tool+" of "+shown(v)+" is destructive: "+why, insteadRm)
				}
			}
		}
	case "copy", "copy_if_different", "copy_directory", "copy_directory_if_different", "create_symlink", "create_hardlink":
		if len(ops) > 0 {
			return checkWrites(c, ops[len(ops)-1:], strict)
		}
	case "rename":
		return checkWrites(c, ops, strict)
	case "make_directory":
		return checkWrites(c, ops, strict)
	case "touch", "touch_nocreate":
		for _, t := range ops {
			if isSourceFile(t.val()) {
				return reject(ruleTouchSource, c.text(), "touching a source file creates an empty stub or fakes a timestamp", "fix the real source")
			}
		}
		return checkWrites(c, ops, strict)
	case "env", "chdir", "time":
		inner := rest
		if tool == "chdir" && len(inner) > 0 {
			if _, err := chdirTo(c, repoDir, inner[0]); err != nil {
				return err
			}
			inner = inner[1:]
		}
		for len(inner) > 0 && (shellwords.IsAssignment(inner[0].val()) || strings.HasPrefix(inner[0].val(), "--")) {
			inner = inner[1:]
		}
		if len(inner) == 0 {
			return nil
		}
		return denyCall(c.sub(inner), depth, strict)
	}
	return nil
}

// findActions are the find primaries that run a command.
var findActions = map[string]bool{"-exec": true, "-execdir": true, "-ok": true, "-okdir": true}

// findFilters are the find primaries that narrow what -delete removes.
var findFilters = map[string]bool{
	"-name": true, "-iname": true, "-path": true, "-ipath": true, "-wholename": true,
	"-iwholename": true, "-regex": true, "-iregex": true, "-newer": true, "-lname": true, "-ilname": true,
}

func denyFind(c call, args []arg, depth int, strict bool) error {
	var starts []arg
	i := 0
	for i < len(args) {
		v := args[i].val()
		if strings.HasPrefix(v, "-") || v == "(" || v == "!" {
			if v == "-H" || v == "-L" || v == "-P" {
				i++
				continue
			}
			break
		}
		starts = append(starts, args[i])
		i++
	}
	if len(starts) == 0 {
		starts = []arg{{alts: []string{"."}}}
	}
	inRepo := true
	for _, s := range starts {
		for _, v := range s.alts {
			if why := rmTargetProblem(v + "/x"); why != "" {
				inRepo = false
			}
		}
	}
	filtered := false
	for ; i < len(args); i++ {
		v := args[i].val()
		switch {
		case findFilters[v]:
			filtered = true
		case v == "-delete":
			if !inRepo {
				return reject(ruleRmRoot, c.text(), "find -delete outside the repository is destructive", "find and delete only inside the repository, such as find . -name '*.o' -delete")
			}
			if !filtered {
				return reject(ruleRmRoot, c.text(), "find -delete without a -name filter removes the whole tree", "add a filter, such as -name '*.o', before -delete")
			}
		case findActions[v]:
			var cmd []arg
			j := i + 1
			for ; j < len(args); j++ {
				w := args[j].val()
				if w == ";" || w == "+" {
					break
				}
				a := args[j]
				if strings.Contains(w, "{}") {
					rep := dyn
					if inRepo {
						rep = "./found"
					}
					a = arg{alts: []string{strings.ReplaceAll(w, "{}", rep)}, dynamic: !inRepo}
				}
				cmd = append(cmd, a)
			}
			i = j
			if len(cmd) > 0 {
				if err := denyCall(c.sub(cmd), depth, strict); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// holdToRepo refuses unpacking into a directory outside the repository (and /tmp): an
// archive holds any file names, which would then overwrite the home directory, tool
// configuration or the system.
func holdToRepo(c call, tool string, dirs []arg) error {
	for _, d := range dirs {
		for _, v := range d.alts {
			if outsideRepo(v) {
				return reject(rulePath, c.text(), tool+" unpacks into "+shown(v)+", outside the repository", "unpack into the repository or a directory below /tmp")
			}
		}
	}
	return nil
}

// denyDpkgDeb holds dpkg-deb -x/-X/-R/-e and dpkg -x to the repository.
func denyDpkgDeb(c call, args []arg, strict bool) error {
	var dirs []arg
	for i := 0; i < len(args); i++ {
		v := args[i].val()
		extract := false
		switch {
		case v == "--extract" || v == "--vextract" || v == "--raw-extract" || v == "--control":
			extract = true
		case strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.ContainsAny(v, "xXRe"):
			extract = true
		case strings.HasPrefix(v, "--root") || strings.HasPrefix(v, "--instdir") || strings.HasPrefix(v, "--admindir"):
			return reject(ruleSystemWrite, c.text(), v+" makes dpkg work on another root", "install packages by name with apt-get install -y <name>")
		}
		if !extract {
			continue
		}
		// ACTION ARCHIVE DIRECTORY
		ops := 0
		for j := i + 1; j < len(args); j++ {
			if strings.HasPrefix(args[j].val(), "-") {
				continue
			}
			ops++
			if ops == 2 {
				dirs = append(dirs, args[j])
				break
			}
		}
		if ops < 2 && strings.ContainsAny(v, "Re") {
			dirs = append(dirs, arg{alts: []string{"DEBIAN"}})
		}
	}
	if err := checkWrites(c, dirs, strict); err != nil {
		return err
	}
	return holdToRepo(c, base(c.prog()), dirs)
}

// denyUnpack holds cpio -D/--directory, bsdtar -C and 7z -o to the repository.
func denyUnpack(c call, name string, args []arg, strict bool) error {
	var dirs []arg
	switch name {
	case "cpio":
		pa := parseArgs(args, optSpec{short: "DEFHIMOR", long: []string{"--directory", "--pattern-file", "--file", "--format", "--message", "--owner", "--rsh-command"}}, false)
		if pa.has("--rsh-command") {
			return reject(ruleDenied, c.text(), "cpio --rsh-command runs another program", "unpack with plain cpio -id")
		}
		dirs = pa.values("-D", "--directory")
	case "bsdtar":
		dirs = parseArgs(args, tarSpec, false).values("-C", "--directory", "--cd")
	case "7z", "7za":
		for _, a := range args {
			if strings.HasPrefix(a.val(), "-o") {
				dirs = append(dirs, arg{alts: []string{strings.TrimPrefix(a.val(), "-o")}, dynamic: a.dynamic})
			}
		}
	}
	if err := checkWrites(c, dirs, strict); err != nil {
		return err
	}
	return holdToRepo(c, name, dirs)
}

// insecureAptOption reports whether an apt argument is, or abbreviates, an option that
// skips package verification.
func insecureAptOption(v string) bool {
	name, _, _ := strings.Cut(v, "=")
	for _, o := range []string{"--allow-unauthenticated", "--allow-insecure-repositories", "--allow-downgrade-to-insecure-repositories", "--no-check-signature", "--allow-releaseinfo-change"} {
		if strings.HasPrefix(name, o) || len(name) > len("--allow-") && strings.HasPrefix(o, name) || name == "--no-check" {
			return o != "--allow-releaseinfo-change"
		}
	}
	return false
}
