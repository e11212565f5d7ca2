package validate

import (
	"errors"
	"testing"
)

type cmdCase struct {
	cmd  string
	ok   bool
	rule string // expected rule when rejected ("" = any)
}

func runCases(t *testing.T, name string, fn func(string) error, cases []cmdCase) {
	t.Helper()
	for _, tc := range cases {
		err := fn(tc.cmd)
		if tc.ok {
			if err != nil {
				t.Errorf("%s(%q) = %v, want accepted", name, tc.cmd, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s(%q) accepted, want rejected (%s)", name, tc.cmd, tc.rule)
			continue
		}
		var r *Rejection
		if !errors.As(err, &r) {
			t.Errorf("%s(%q) = %T %v, want *Rejection", name, tc.cmd, err, err)
			continue
		}
		if tc.rule != "" && r.Rule != tc.rule {
			t.Errorf("%s(%q) fired rule %q (%v), want %q", name, tc.cmd, r.Rule, err, tc.rule)
		}
		if r.Instead == "" {
			t.Errorf("%s(%q) rejection says nothing to do instead: %v", name, tc.cmd, err)
		}
	}
}

var singleCases = []cmdCase{
	// Accepted.
	{"make", true, ""},
	{"make -j4", true, ""},
	{"make -C build install", true, ""},
	{"CFLAGS='-O2 -fPIC' make", true, ""},
	{"CC=gcc CXX=g++ ./configure --prefix=/usr/local", true, ""},
	{"./configure", true, ""},
	{"./autogen.sh", true, ""},
	{"./scripts/bootstrap --verbose", true, ""},
	{"sh ./autogen.sh", true, ""},
	{"bash autogen.sh", true, ""},
	{"cmake -S . -B build -DCMAKE_BUILD_TYPE=Release", true, ""},
	{"cmake --build build -j4", true, ""},
	{"cmake -E make_directory build", true, ""},
	{"cmake -E rm -rf build", true, ""},
	{"ninja -C build", true, ""},
	{"meson setup builddir", true, ""},
	{"meson compile -C builddir", true, ""},
	{"cargo build --release", true, ""},
	{"go build ./...", true, ""},
	{"go mod tidy", true, ""},
	{"go env -w GOFLAGS=-mod=mod", true, ""},
	{"gcc -O2 -o foo foo.c", true, ""},
	{"g++ -std=c++17 -c x.cc", true, ""},
	{"autoreconf -fi", true, ""},
	{"autoreconf --install --force", true, ""},
	{"aclocal", true, ""},
	{"libtoolize --copy", true, ""},
	{"pkg-config --cflags zlib", true, ""},
	{"apt-get install -y zlib1g-dev", true, ""},
	{"apt-get update", true, ""},
	{"apt-get -y install libssl-dev pkg-config", true, ""},
	{"apk add --no-cache openssl-dev", true, ""},
	{"apk update", true, ""},
	{`sed -i 's/-m64//g' Makefile`, true, ""},
	{`sed -i -e 's/x86_64/riscv64/' -e 's/-msse2//' configure.ac`, true, ""},
	{"sed -i 's|/usr/lib|/usr/local/lib|g' Makefile.am", true, ""},
	{"sed -i '/^#include <x86intrin.h>/d' src/cpu.c", true, ""},
	{"sed -i '1i #include <stdint.h>' src/util.h", true, ""},
	{`sed -i 's/\(foo\)/\1bar/' x.c`, true, ""},
	{"sed -i.bak -E 's/-march=[a-z0-9-]+//' CMakeLists.txt", true, ""},
	{"sed --in-place=.orig -e 's/a/b/' f.c", true, ""},
	{"sed -n '/riscv/p' configure.ac", true, ""},
	{"sed -i 's/a/b/w /etc/x' f", false, ruleArgs},
	{"sed -i 's/a/b/' $FILE", false, ruleSystemWrite},
	{"cp /usr/share/misc/config.guess build-aux/config.guess", true, ""},
	{"cp /usr/share/misc/config.sub .", true, ""},
	{"mv src/old.h src/new.h", true, ""},
	{"mkdir -p build", true, ""},
	{"ln -sf ../include include/compat", true, ""},
	{"chmod +x configure", true, ""},
	{"patch -p1 -i fix-riscv.patch", true, ""},
	{"tar xzf deps.tar.gz", true, ""},
	{"git status", true, ""},
	{"git diff HEAD", true, ""},
	{"git submodule update --init --recursive", true, ""},
	{"git checkout -- src/foo.c", true, ""},
	{"git apply fix.patch", true, ""},
	{"git config --global --add safe.directory /workspace/zlib", true, ""},
	{"rm -rf build", true, ""},
	{"rm -f CMakeCache.txt", true, ""},
	{"rm -rf build/CMakeFiles", true, ""},
	{"touch NEWS", true, ""},
	{"touch aclocal.m4 Makefile.in", true, ""},
	{"ls -la", true, ""},
	{"cat config.log", true, ""},
	{"make CFLAGS=$CFLAGS", true, ""},
	{"make \\\n  -j4", true, ""},
	{"ldconfig", true, ""},
	{"make # build everything", true, ""},
	// Rejected: chaining and shell syntax.
	{"make && make install", false, ruleShellSyntax},
	{"make || true", false, ruleShellSyntax},
	{"make; rm -rf ~", false, ruleSingle},
	{"make;make", false, ruleSingle},
	{"make | tee log", false, ruleShellSyntax},
	{"make > log", false, ruleShellSyntax},
	{"make 2>&1", false, ruleShellSyntax},
	{"cat < /etc/passwd", false, ruleShellSyntax},
	{"echo $(id)", false, ruleShellSyntax},
	{"echo `id`", false, ruleShellSyntax},
	{"make -j$(nproc)", false, ruleShellSyntax},
	{"(make)", false, ruleShellSyntax},
	{"{ make; }", false, ruleShellSyntax},
	{"make &", false, ruleShellSyntax},
	{"make\nrm -rf /", false, ruleSingle},
	{"make\nmake install", false, ruleSingle},
	{"! make", false, ruleShellSyntax},
	{"if true; then make; fi", false, ruleShellSyntax},
	{"for f in *; do rm $f; done", false, ""},
	{"f() { make; }", false, ""},
	{"cat <<EOF\nhi\nEOF", false, ruleShellSyntax},
	{"diff <(ls) <(ls /)", false, ruleShellSyntax},
	{"echo $((1+2))", false, ruleShellSyntax},
	{"echo ${HOME:-$(id)}", false, ruleShellSyntax},
	{"echo ${!x}", false, ruleShellSyntax},
	{"export CC=gcc", false, ""},
	{"FOO=bar", false, ruleSingle},
	{"", false, ruleEmpty},
	{"   ", false, ruleEmpty},
	{"# only a comment", false, ruleEmpty},
	{"make 'unterminated", false, ruleParse},
	{"echo $'\\x72m'", false, ruleShellSyntax},
	// Rejected: programs off the allow list and privilege tools.
	{"docker run x", false, ruleAllowList},
	{"doas make", false, ruleAllowList},
	{"sudo make install", false, ruleAllowList},
	{"su -c 'make install'", false, ruleAllowList},
	{"eval make", false, ruleAllowList},
	{"exec make", false, ruleAllowList},
	{"bash -c 'rm -rf /'", false, ruleAllowList},
	{"sh -c make", false, ruleAllowList},
	{"bash -ec make", false, ruleAllowList},
	{"bash", false, ruleAllowList},
	{"zsh script.sh", false, ruleAllowList},
	{"env rm -rf /", false, ruleAllowList},
	{"xargs rm", false, ruleAllowList},
	{"nohup make", false, ruleAllowList},
	{"curl -O https://host/x.tar.gz", false, ruleAllowList},
	{"wget http://x/config.guess", false, ruleAllowList},
	{"python3 -c 'import os'", false, ruleAllowList},
	{"/bin/rm -rf build", false, ruleAllowList},
	{"../configure", false, ruleAllowList},
	{"./../../bin/x", false, ruleAllowList},
	{"scripts/build.sh", false, ruleAllowList},
	{"cd build", false, ruleAllowList},
	{"dockerd", false, ruleAllowList},
	{"makefoo", false, ruleAllowList},
	{"$CC -o x x.c", false, ruleLiteralProgram},
	{"'ma'ke", true, ""},
	{"m\\ake", true, ""},
	{"\"sudo\" make", false, ruleAllowList},
	{"s\\udo make", false, ruleAllowList},
	{"PATH=/tmp make", false, ruleShellSyntax},
	{"LD_PRELOAD=/tmp/x.so make", false, ruleShellSyntax},
	// Rejected: destructive arguments.
	{"rm -rf /", false, ruleRmRoot},
	{"rm -r /", false, ruleRmRoot},
	{"rm -fr /*", false, ruleRmRoot},
	{"rm -rf ~", false, ruleRmRoot},
	{"rm -rf ~/", false, ruleRmRoot},
	{"rm -rf /usr", false, ruleRmRoot},
	{"rm -rf /usr/lib/", false, ruleRmRoot},
	{"rm -rf --no-preserve-root /", false, ruleRmRoot},
	{"rm -rf .", false, ruleRmRoot},
	{"rm -rf *", false, ruleRmRoot},
	{"rm -rf ..", false, ruleRmRoot},
	{"rm -rf ../other", false, ruleRmRoot},
	{"rm -rf /{usr,etc}", false, ruleRmRoot},
	{"rm -rf /tmp/{..,x}", false, ruleRmRoot},
	{"rm -rf '/'", false, ruleRmRoot},
	{"rm -rf \"/\"", false, ruleRmRoot},
	{"rm -rf /workspace", false, ruleRmRoot},
	{"rm -rf $HOME", false, ruleRmRoot},
	{"rm -rf /etc/passwd", false, ruleRmRoot},
	{"rm -rf -- /", false, ruleRmRoot},
	{"rm -rf /tmp/../", false, ruleRmRoot},
	{"cmake -E rm -rf /usr", false, ruleRmRoot},
	{"cmake -E env rm -rf /", false, ruleRmRoot},
	{"cmake -E env make", false, ruleArgs},
	{"git push origin main", false, ruleGitHistory},
	{"git push", false, ruleGitHistory},
	{"git reset --hard HEAD~1", false, ruleGitHistory},
	{"git clean -fdx", false, ruleGitHistory},
	{"git -c alias.x='!rm -rf /' x", false, ruleArgs},
	{"git -c core.pager=less log", false, ruleArgs},
	{"git submodule foreach rm -rf .", false, ruleArgs},
	{"git rebase -i HEAD~3", false, ruleArgs},
	{"git config core.hooksPath /tmp/hooks", false, ruleArgs},
	{"touch src/main.c", false, ruleTouchSource},
	{"touch stub.go", false, ruleTouchSource},
	{"touch include/foo.h", false, ruleTouchSource},
	{"cp x.h /usr/include/x.h", false, ruleSystemWrite},
	{"cp libfoo.so /usr/lib/", false, ruleSystemWrite},
	{"mv /etc/hosts /tmp/", false, ruleSystemWrite},
	{"ln -sf /usr/bin/python3 /usr/bin/python", false, ruleSystemWrite},
	{"install -m 755 foo /bin/foo", false, ruleSystemWrite},
	{"sed -i 's/a/b/' /etc/apt/sources.list", false, ruleSystemWrite},
	{"chmod -R 777 /", false, ruleSystemWrite},
	{"chmod 777 /etc/shadow", false, ruleSystemWrite},
	{"mkdir /etc/foo", false, ruleSystemWrite},
	{"tar -xzf x.tgz -C /", false, ruleSystemWrite},
	{"tar -xf x.tar --to-command=sh", false, ruleDenied},
	{"sed -i '1e id' Makefile", false, ruleDenied},
	{"sed 's/x/id/e' Makefile", false, ruleDenied},
	{"sed -f script.sed Makefile", false, ruleArgs},
	{"apt-get -y remove gcc", false, rulePkgRemove},
	{"apt-get remove gcc", false, rulePkgRemove},
	{"apt-get purge libc6", false, rulePkgRemove},
	{"apt-get autoremove -y", false, rulePkgRemove},
	{"apt remove cmake", false, rulePkgRemove},
	{"apt-get install -y gcc-", false, rulePkgRemove},
	{"apk del gcc", false, rulePkgRemove},
	{"apk --no-cache del musl-dev", false, rulePkgRemove},
	{"dpkg -r gcc", false, rulePkgRemove},
	{"dpkg --purge gcc", false, rulePkgRemove},
	{"dpkg -i foo.deb", false, ruleDenied},
	{"apt-get -o APT::Update::Pre-Invoke::=id update", false, ruleDenied},
	{"apt-get dist-upgrade", false, ruleArgs},
	{"find . -name '*.o' -delete", false, ruleArgs},
	{"find / -exec rm {} ;", false, ruleRmRoot},
	{"tail -f config.log", false, ruleArgs},
	{"go build -toolexec=/tmp/x ./...", false, ruleHook},
	{"gcc -o /usr/bin/foo foo.c", false, ruleSystemWrite},
	{"make --eval='$(shell id)'", false, ruleHook},
	{"meson devenv", false, ruleArgs},
	{"dd if=/dev/zero of=/dev/sda", false, ruleAllowList},
	{"mkfs.ext4 /dev/sda1", false, ruleAllowList},
}

func TestSingleCommand(t *testing.T) {
	runCases(t, "SingleCommand", SingleCommand, singleCases)
}

func TestFixCommand(t *testing.T) {
	extra := []cmdCase{
		{"apk add mod", false, ruleGoSubcmdPkg},
		{"apt-get install -y build", false, ruleGoSubcmdPkg},
		{"apt-get install -y golang-go", true, ""},
		{"make; rm -rf ~", false, ruleRmRoot},
		{"make && git push", false, ruleGitHistory},
		{"docker run x", false, ruleAllowList},
		{"./configure --host=riscv64-linux-gnu", true, ""},
		{"./configure --host=aarch64-linux-gnu", false, ruleCross},
		{"make CC=riscv64-linux-gnu-gcc", true, ""},
		{"make CC=riscv64-unknown-linux-gnu-gcc", false, ruleCross},
		{"make CFLAGS=-O2", true, ""},
	}
	// FixCommand applies the deny rules before the single-command rules, so a shared
	// case may fire another rule than in SingleCommand: check only the verdict.
	var shared []cmdCase
	for _, c := range singleCases {
		shared = append(shared, cmdCase{cmd: c.cmd, ok: c.ok})
	}
	runCases(t, "FixCommand", FixCommand, append(shared, extra...))
}

func TestDenyRules(t *testing.T) {
	runCases(t, "DenyRules", DenyRules, []cmdCase{
		{"make && make install", true, ""},
		{"cd build && cmake .. && make -j$(nproc)", true, ""},
		{"make -j$(nproc) 2>&1 | tee build.log", true, ""},
		{"rm -rf build && mkdir build", true, ""},
		{"find . -name '*.o' -delete", true, ""},
		{"find . -name '*.o' -exec rm -f {} +", true, ""},
		{"echo ok > /dev/null", true, ""},
		{"make install DESTDIR=/tmp/stage", true, ""},
		{"cp lib/libz.so /usr/local/lib/", true, ""},
		{"sudo make install", true, ""},
		{"docker ps", true, ""},
		{"make; rm -rf ~", false, ruleRmRoot},
		{"make && rm -rf /usr", false, ruleRmRoot},
		{"true && apt-get remove -y gcc", false, rulePkgRemove},
		{"echo $(rm -rf /)", false, ruleRmRoot},
		{"echo `rm -rf /`", false, ruleRmRoot},
		{"(cd / && rm -rf *)", false, ""},
		{"bash -c 'rm -rf /'", false, ruleRmRoot},
		{"sh -c \"make && rm -rf /usr\"", false, ruleRmRoot},
		{"bash -c \"bash -c 'rm -rf /'\"", false, ruleRmRoot},
		{"eval rm -rf /", false, ruleRmRoot},
		{"eval \"$CMD\"", false, ruleLiteralProgram},
		{"sudo rm -rf /", false, ruleRmRoot},
		{"doas rm -rf /", false, ruleRmRoot},
		{"sudo -u root rm -rf /", false, ruleRmRoot},
		{"env FOO=1 rm -rf /", false, ruleRmRoot},
		{"env -S 'rm -rf /'", false, ruleRmRoot},
		{"nice -n 5 rm -rf /", false, ruleRmRoot},
		{"timeout 10 rm -rf /", false, ruleRmRoot},
		{"nohup git push &", false, ruleGitHistory},
		{"busybox rm -rf /", false, ruleRmRoot},
		{"command rm -rf /", false, ruleRmRoot},
		{"su -c 'apt-get purge gcc'", false, rulePkgRemove},
		{"find / -name x -delete", false, ruleRmRoot},
		{"find . -delete", false, ruleRmRoot},
		{"find / -exec rm -rf {} \\;", false, ruleRmRoot},
		{"ls | xargs rm -rf", false, ruleRmRoot},
		{"$(echo rm) -rf /", false, ruleLiteralProgram},
		{"echo x > /etc/ld.so.conf.d/x.conf", false, ruleSystemWrite},
		{"echo x >> /usr/lib/pkgconfig/foo.pc", false, ruleSystemWrite},
		{"make 2> /dev/sda", false, ruleSystemWrite},
		{"cat x | tee /etc/profile", false, ruleSystemWrite},
		{"dd if=/dev/zero of=/dev/sda", false, ruleSystemWrite},
		{":(){ :|:& };:", false, ruleFuncDecl},
		{"kill -9 -1", false, ruleDenied},
		{"reboot", false, ruleDenied},
		{"git reset --hard && make", false, ruleGitHistory},
		{"if true; then git clean -fdx; fi", false, ruleGitHistory},
		{"for i in 1; do rm -rf /; done", false, ruleRmRoot},
		{"cmake -E env X=1 rm -rf /", false, ruleRmRoot},
		{"cmake -E chdir /tmp rm -rf /", false, ruleRmRoot},
		{"rm -rf /{bin,lib}", false, ruleRmRoot},
		{"rm -rf /tmp/.{+../}", false, ruleRmRoot},
		{"touch src/a.c && make", false, ruleTouchSource},
	})
}

func TestInvestigationCommand(t *testing.T) {
	runCases(t, "InvestigationCommand", InvestigationCommand, []cmdCase{
		{"cat config.log", true, ""},
		{"head -n 50 CMakeLists.txt", true, ""},
		{"tail -n 100 build.log", true, ""},
		{"ls -la src", true, ""},
		{"find . -name '*.h'", true, ""},
		{"grep -rn 'include <immintrin.h>' src", true, ""},
		{"egrep -n 'x86|sse' configure.ac", true, ""},
		{"file build/libz.so", true, ""},
		{"stat Makefile", true, ""},
		{"wc -l src/main.c", true, ""},
		{"pkg-config --libs openssl", true, ""},
		{"readelf -h build/foo", true, ""},
		{"nm -D libfoo.so", true, ""},
		{"ldd build/foo", true, ""},
		{"go env GOARCH", true, ""},
		{"go list -m all", true, ""},
		{"go version", true, ""},
		{"which gcc", true, ""},
		{"cat x > y", false, ruleShellSyntax},
		{"cat < x", false, ruleShellSyntax},
		{"cat x | grep y", false, ruleShellSyntax},
		{"cat x && rm y", false, ruleShellSyntax},
		{"rm -rf build", false, ruleInvestigate},
		{"make", false, ruleInvestigate},
		{"find . -exec rm {} ;", false, ruleArgs},
		{"find . -delete", false, ruleArgs},
		{"find . -ok rm {} ;", false, ruleArgs},
		{"go run main.go", false, ruleInvestigate},
		{"go build ./...", false, ruleInvestigate},
		{"go test ./...", false, ruleInvestigate},
		{"go generate ./...", false, ruleInvestigate},
		{"go env -w GOFLAGS=x", false, ruleInvestigate},
		{"go list -toolexec=/tmp/x ./...", false, ruleInvestigate},
		{"tail -f log", false, ruleArgs},
		{"FOO=1 cat x", false, ruleInvestigate},
		{"/bin/cat x", false, ruleInvestigate},
		{"cat $(id)", false, ruleShellSyntax},
		{"cat x\nrm y", false, ruleSingle},
	})
}

func TestWorkloadCommand(t *testing.T) {
	programs := []string{"/workspace/zlib/build/minigzip", "build/example"}
	fn := func(c string) error { return WorkloadCommand(c, programs) }
	runCases(t, "WorkloadCommand", fn, []cmdCase{
		{"./build/minigzip -9 -c data.txt", true, ""},
		{"minigzip -d", false, ruleWorkload},
		{"./minigzip -d", false, ruleWorkload},
		{"/tmp/build/minigzip", false, ruleWorkload},
		{"./build/example", true, ""},
		{"/workspace/zlib/build/minigzip", true, ""},
		{"build/example 'a b' \"c\"", true, ""},
		{"./build/minigzip *.txt", false, ruleWorkload},
		{"./build/minigzip $HOME", false, ruleWorkload},
		{"./build/minigzip ~/x", false, ruleWorkload},
		{"X=1 ./build/minigzip", false, ruleWorkload},
		{"./build/minigzip > out", false, ruleShellSyntax},
		{"./build/minigzip | head", false, ruleShellSyntax},
		{"./build/minigzip; rm -rf /", false, ruleSingle},
		{"gzip -9", false, ruleWorkload},
		{"../minigzip", false, ruleWorkload},
		{"./build/minigzip {a,b}", false, ruleWorkload},
	})
	if err := WorkloadCommand("./x", nil); err == nil {
		t.Error("WorkloadCommand with no programs accepted")
	}
}
