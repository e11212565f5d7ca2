package staleobj

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
)

func plan(lines ...string) atesor.BuildPlan {
	return atesor.BuildPlan{Phases: []atesor.Phase{{Name: "build", Commands: lines}}}
}

func TestSteps(t *testing.T) {
	tests := []struct {
		name         string
		before, next atesor.BuildPlan
		want         []Step
	}{
		{
			// genders 1.27.3: gcc14-permissive's CFLAGS at configure time, after make
			// had compiled part of the tree with autoconf's default flags.
			name:   "configure's environment",
			before: plan("./configure && make -j$(nproc)"),
			next:   plan("CFLAGS='-g -O2 -fpermissive' ./configure && make -j$(nproc)"),
			want:   []Step{{Make, ".", "", "`CFLAGS='-g -O2 -fpermissive' ./configure` adds CFLAGS=-g -O2 -fpermissive"}},
		},
		{
			name:   "configure switch in the build's directory",
			before: plan("cd 'src' && ./configure && make -j$(nproc)"),
			next:   plan("cd 'src' && ./configure --without-java-extensions && make -j$(nproc)"),
			want:   []Step{{Make, "src", "", "`./configure --without-java-extensions` adds --without-java-extensions"}},
		},
		{
			name:   "a switch dropped",
			before: plan("./configure --with-x && make"),
			next:   plan("./configure && make"),
			want:   []Step{{Make, ".", "", "`./configure` drops --with-x"}},
		},
		{
			name:   "make serialised: no flag changed",
			before: plan("./configure && make -j$(nproc)"),
			next:   plan("./configure && make -j1"),
		},
		{
			name:   "CFLAGS in make's environment",
			before: plan("make -j$(nproc)"),
			next:   plan("CFLAGS='-g -O2 -fcommon' make -j$(nproc)"),
			want:   []Step{{Make, ".", "", "`CFLAGS='-g -O2 -fcommon' make -j$(nproc)` adds CFLAGS=-g -O2 -fcommon"}},
		},
		{
			name:   "CC on make's command line in a -C directory",
			before: plan("make -C 'src' -j$(nproc)"),
			next:   plan("make -C 'src' -j$(nproc) CC='cc -fcommon'"),
			want:   []Step{{Make, "src", "", "`make -C 'src' -j$(nproc) CC='cc -fcommon'` adds CC=cc -fcommon"}},
		},
		{
			name:   "LIBS through env, absolute cd inside the repository",
			before: plan("cd /workspace/pkg/lib && make"),
			next:   plan("cd /workspace/pkg/lib && env LIBS=-latomic make"),
			want:   []Step{{Make, "lib", "", "`env LIBS=-latomic make` adds LIBS=-latomic"}},
		},
		{
			// lutefisk: its only makefiles are per platform, in src/.
			name:   "CC on the command line of a platform makefile",
			before: plan("make -C src -f Makefile.linux -j$(nproc)"),
			next:   plan("make CC='cc -Wno-error=implicit-function-declaration' -C src -f Makefile.linux -j$(nproc)"),
			want: []Step{{Make, "src", "Makefile.linux",
				"`make CC='cc -Wno-error=implicit-function-declaration' -C src -f Makefile.linux -j$(nproc)` adds CC=cc -Wno-error=implicit-function-declaration"}},
		},
		{
			name:   "a variable that is no flag",
			before: plan("make V=0"),
			next:   plan("make V=1"),
		},
		{
			name:   "commands of one kind compared in order",
			before: plan("make -j4 && make install DESTDIR=/tmp/s"),
			next:   plan("CFLAGS=-fcommon make -j4 && make install DESTDIR=/tmp/s"),
			want:   []Step{{Make, ".", "", "`CFLAGS=-fcommon make -j4` adds CFLAGS=-fcommon"}},
		},
		{
			name:   "configure and make changed in one directory: one step",
			before: plan("./configure && make"),
			next:   plan("LIBS=-latomic ./configure && make LDFLAGS=-latomic"),
			want:   []Step{{Make, ".", "", "`LIBS=-latomic ./configure` adds LIBS=-latomic"}},
		},
		{
			name: "phases apart",
			before: atesor.BuildPlan{Phases: []atesor.Phase{
				{Name: "configure", Commands: []string{"autoreconf -fi", "./configure --prefix=/usr"}}, {Name: "build", Commands: []string{"make"}}}},
			next: atesor.BuildPlan{Phases: []atesor.Phase{
				{Name: "configure", Commands: []string{"autoreconf -fi", "./configure --prefix=/usr --disable-curl"}}, {Name: "build", Commands: []string{"make"}}}},
			want: []Step{{Make, ".", "", "`./configure --prefix=/usr --disable-curl` adds --disable-curl"}},
		},
		{
			name:   "cmake flags of the build type",
			before: plan("cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"),
			next:   plan("cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE='-O3 -DNDEBUG -fpermissive' && cmake --build build -j$(nproc)"),
			want: []Step{{CMake, "build", "", "`cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE='-O3 -DNDEBUG -fpermissive'` " +
				"adds -DCMAKE_CXX_FLAGS_RELEASE=-O3 -DNDEBUG -fpermissive"}},
		},
		{
			name:   "cmake --build serialised",
			before: plan("cmake -S . -B build && cmake --build build -j$(nproc)"),
			next:   plan("cmake -S . -B build && cmake --build build -j1"),
		},
		{
			name:   "cmake in its build directory",
			before: plan("mkdir -p build && cd build && cmake .. && make"),
			next:   plan("mkdir -p build && cd build && cmake .. -DBUILD_TESTING=OFF && make"),
			want:   []Step{{CMake, "build", "", "`cmake .. -DBUILD_TESTING=OFF` adds -DBUILD_TESTING=OFF"}},
		},
		{
			name:   "meson option",
			before: plan("meson setup builddir && ninja -C builddir"),
			next:   plan("meson setup -Dc_args='-fcommon' builddir && ninja -C builddir"),
			want:   []Step{{Meson, "builddir", "", "`meson setup -Dc_args='-fcommon' builddir` adds -Dc_args=-fcommon"}},
		},
		{
			name:   "meson's old form with a value option",
			before: plan("meson --prefix /usr _build"),
			next:   plan("meson --prefix /usr _build -Dtests=false"),
			want:   []Step{{Meson, "_build", "", "`meson --prefix /usr _build -Dtests=false` adds -Dtests=false"}},
		},
		{
			name:   "another build system: the earlier one built nothing here",
			before: plan("cmake -S . -B build && cmake --build build"),
			next:   plan("./configure && make"),
		},
		{
			name:   "a directory not known before the shell runs",
			before: plan("cd $SRC && ./configure && make"),
			next:   plan("cd $SRC && ./configure --disable-nls && make"),
		},
		{
			name:   "a directory outside the repository",
			before: plan("cd ../other && make"),
			next:   plan("cd ../other && make CFLAGS=-O0"),
		},
		{
			name:   "unchanged",
			before: plan("./configure && make"),
			next:   plan("./configure && make"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Steps(tt.before, tt.next, "/workspace/pkg")
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Steps (-want +got):\n%s", d)
			}
		})
	}
}

func TestStepLine(t *testing.T) {
	tests := []struct {
		step Step
		want string
	}{
		{Step{System: Make, Dir: "."}, "cd '.' && if [ -f GNUmakefile ] || [ -f makefile ] || [ -f Makefile ]; then make clean; fi"},
		{Step{System: Make, Dir: "src dir"}, "cd 'src dir' && if [ -f GNUmakefile ] || [ -f makefile ] || [ -f Makefile ]; then make clean; fi"},
		{Step{System: Make, Dir: ".", Makefile: "makefile.unx"}, "cd '.' && if [ -f 'makefile.unx' ]; then make -f 'makefile.unx' clean; fi"},
		{Step{System: CMake, Dir: "build"}, "rm -f -- 'build/CMakeCache.txt'"},
		{Step{System: Meson, Dir: "builddir"}, "rm -f -- 'builddir/meson-private/coredata.dat'"},
	}
	for _, tt := range tests {
		if got := tt.step.Line(); got != tt.want {
			t.Errorf("%+v: Line() = %q, want %q", tt.step, got, tt.want)
		}
	}
}

// TestMakeRuns: the make commands of a plan with the directory and -f makefile each
// reads; configure, a makefile outside the tree and a makefile named by a variable are
// left out.
func TestMakeRuns(t *testing.T) {
	p := atesor.BuildPlan{Phases: []atesor.Phase{{Name: "build", Commands: []string{
		"./configure && make -j$(nproc)",
		"make -C src -f Makefile.linux -j$(nproc)",
		"cd lib && make --makefile=makefile.unx all",
		"make -fGNUmakefile.gcc",
		"make -f ../elsewhere.mk",
		"make -f $MK",
	}}}}
	want := []MakeRun{{".", ""}, {"src", "Makefile.linux"}, {"lib", "makefile.unx"}, {".", "GNUmakefile.gcc"}}
	if d := cmp.Diff(want, MakeRuns(p, "/workspace/pkg")); d != "" {
		t.Errorf("MakeRuns (-want +got):\n%s", d)
	}
}

// FuzzSteps: plan lines come from a model or a rule; no line may panic the reading,
// and every step names a directory inside the repository.
func FuzzSteps(f *testing.F) {
	f.Add("./configure && make -j$(nproc)", "CFLAGS='-g -O2 -fpermissive' ./configure && make -j$(nproc)")
	f.Add("cd build && cmake .. && make", "cd build && cmake .. -DX=1 && make -C sub CC=gcc")
	f.Add("meson setup -D x b", "meson setup -D y b")
	f.Add("make -C", "make -C''")
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, s := range Steps(plan(a), plan(b), "/workspace/pkg") {
			if s.Dir == "" || s.Dir == ".." || len(s.Dir) > 1 && s.Dir[0] == '/' || len(s.Dir) >= 3 && s.Dir[:3] == "../" {
				t.Errorf("step %+v names a directory outside the repository", s)
			}
			if s.Line() == "" {
				t.Errorf("step %+v has no line", s)
			}
		}
	})
}
