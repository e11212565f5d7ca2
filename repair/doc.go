// Package repair holds scripted fixes: rules that map a classified build failure and
// its log (or, for rules written for it, a failed verification) to a fix that needs no
// model. Each [Rule] is data (a name, the error
// categories it answers, signatures of the failing output) plus a function that makes
// the [Fix]: actions like a model's strategy (commands, patches) and/or a new build
// plan. The graph's fix node turns a fix into an ordinary atesor.FixAttempt with source
// "scripted" and the rule's name; it passes the same validation, is proven by the same
// next build and lands in the same recipe as a model's fix.
//
// The rules, in the order they are tried ([Rules]):
//   - config-scripts: config.guess/config.sub older than riscv64 are replaced by the
//     distro's current copies (the shipped configure is kept);
//   - automake-missing-subdir: configure.ac and Makefile.am that still name a directory
//     the tarball lacks (a repack strips tests/ or a vendored copy) have it patched out
//     of AC_CONFIG_FILES, AC_CONFIG_SUBDIRS, SUBDIRS and the variables SUBDIRS uses,
//     and a shipped configure is regenerated with autoreconf -fi before it runs;
//   - automake-missing-doc: make's "No rule to make target 'doc/x.texi'" for a Texinfo
//     manual or man page a Makefile.am lists and the tarball lacks (adplug's +dfsg repack
//     strips its GFDL manual) has the word dropped from info_TEXINFOS or the *_MANS
//     variable, the manual's own doc_x_TEXINFOS with it, as the distribution's patch does,
//     and autoreconf -fi before ./configure; a file in the tree or named only through a
//     variable gets no fix;
//   - automake-undefined-conditional: automake's "X does not appear in AM_CONDITIONAL"
//     for a conditional that a macro configure.ac calls would define, when no m4 file
//     of the tree defines that macro and the two names share a word (libmpc's svn
//     export calls CHECK_VISIBILITY without its m4/ and uses HAVE_VISIBILITY): the
//     call is replaced by AM_CONDITIONAL([X], [false]), a recorded patch, as Debian's
//     packaging does;
//   - autoreconf: an autotools tree without a generated configure gets autoreconf -fi
//     with the autotools installed;
//   - gettext-version-mismatch: po/Makefile.in.in's "gettext infrastructure mismatch"
//     (a Makefile.in.in from an older gettext than the po.m4 configure was made with:
//     AM_GNU_GETTEXT_VERSION pins autopoint to the old infrastructure while aclocal
//     --install takes the installed gettext's po.m4) has configure.ac ask for the
//     installed gettext with AM_GNU_GETTEXT_REQUIRE_VERSION, a recorded patch, and
//     autoreconf -fi with autopoint installed before ./configure, so po/ and configure
//     come from one gettext (--disable-nls would not do: the check runs without NLS);
//   - foreign-arch-flags: flags of another architecture (x86's -m64, -msse*, -mavx*,
//     -march=native; ARM's -march=armv*, -mfpu=, -mfloat-abi=; PowerPC's -mcpu=power*,
//     -maltivec; s390x, LoongArch and MIPS ones: the list is the rule's data) are
//     removed from the build files with a recorded patch, and a -march= a variable
//     holds when the compiler refused a foreign or native -march;
//   - glibc-removed-errlist: C that uses sys_errlist, sys_nerr or sys_siglist (or their
//     underscored twins), which glibc 2.32 removed from its API, so the compiler calls
//     them undeclared or the linker finds no definition: in each source file of the tree
//     that uses them, sys_errlist[E] and the E < sys_nerr ? sys_errlist[E] : "..." idiom
//     become strerror(E), sys_siglist[S] strsignal(S), the program's own extern
//     declarations and #defines of the names go, another sys_nerr becomes 4096, and
//     <string.h> is included after the file's last unconditional #include before the
//     first edit (recorded patches); refused for a file that uses a name other than by
//     index (its address, sys_errlist + E) or defines its own table or strerror;
//   - gcc14-permissive: GCC 14's new default errors in old C (implicit function
//     declarations, implicit int, int-conversion, incompatible pointer types) are
//     relaxed by the smallest -Wno-error= flags, passed through the build system's own
//     variables (CFLAGS at configure time, CMAKE_C_FLAGS, meson setup's -Dc_args,
//     make's CFLAGS, or CC when the makefile the plan's make reads, -C and -f followed,
//     sets CFLAGS outright), never by editing sources;
//   - cxx-cstdint: C++ that uses uint64_t and friends without <cstdint>, which GCC
//     13's libstdc++ no longer brings in through its other headers, gets #include
//     <cstdint> before the first #include of each file the errors name (a recorded patch);
//   - cxx-std-header: C++ that uses a standard library name without its header (pktanon's
//     std::runtime_error after <string> alone), which a newer libstdc++ no longer brings
//     in through its other headers, gets the #include GCC's note names ("this is probably
//     fixable by adding '#include <stdexcept>'") before the first #include of each file
//     the notes name (recorded patches); refused where the file already includes it;
//   - cxx-versioned-namespace: C++ that names a library's versioned namespace the
//     installed headers no longer declare (pktanon's xercesc_3_1 against Xerces-C 3.2)
//     gets the unversioned alias the headers declare (namespace xercesc = ...), else
//     their one other version ([NamespaceFunc] greps the sandbox's headers), where the
//     name is a namespace (X::, using namespace X) in the files the errors name and the
//     tree's other C/C++ files, as recorded patches; refused when no installed header
//     declares the name's base, or several versions and no alias;
//   - cxx17-removed: C++ that C++17 removed and GCC's default gnu++17 rejects
//     (ea-utils' ++ on a bool; dynamic exception specifications; Clang's register
//     error) gets -std=gnu++14 through CMAKE_CXX_FLAGS of the build type, CXXFLAGS at
//     configure time, meson's cpp_args, or make's command line (CC with its compiler
//     when the makefile compiles C++ with CC=g++, else CXXFLAGS or CXX); before
//     gxx-permissive, which no -fpermissive of these errors would satisfy;
//   - gxx-permissive: C++ errors GCC accepts under -fpermissive (old code a newer
//     compiler rejects) get the flag through CMAKE_CXX_FLAGS of the build type or
//     CXXFLAGS at configure time;
//   - make-subdir-makefile: make -C DIR stopping on a bare source name the makefile in
//     DIR lists while the file sits in a directory above, with most of the makefile's
//     sources (unace's unix/makefile, written to be copied beside the sources) runs as
//     make -f DIR/makefile from there, as the distribution's build does;
//   - automake-stale-sources: a Makefile.am source the tree has only under another
//     extension (bzrtp's cryptoUtils.c, now cryptoUtils.cc), which the tree's CMake or
//     meson files list: the autotools files are stale, and the build switches to that
//     system's default plan with the packages installed so far;
//   - automake-windows-source: make has no rule for a C or C++ source a Makefile.am's
//     _SOURCES lists and the tarball lacks, and every include of its header in the tree
//     is inside a Windows conditional (iperf 2.2.1+dfsg's stripped src/service.c, whose
//     service.h main.cpp includes under #ifdef WIN32): the file is dropped from the
//     list and autoreconf regenerates the Makefile.in files; refused when any include
//     is outside such a conditional or nothing includes it;
//   - configure-generated-include: a plain make build stopping at "No rule to make
//     target '../config.mk'" where the tree's configure.ac writes that file from a .in
//     template (pgpointcloud's AC_OUTPUT): the default autotools plan, with the
//     packages installed so far;
//   - go-exclude: go build ./... stopping at compile errors that all lie in
//     directories no part of the library (a directory of several package main
//     programs, each run alone with go run FILE; examples, docs, benchmarks, tools):
//     the plan's go build and go test name the tree's other package directories in
//     place of ./..., and the tests and the install step build the same lists; refused
//     for the module's root and any other package (a real compile error);
//   - go-test-vet-off: go test's vet step (an analyzer's report under the "# P" and
//     "# [P]" header, a tests-analyzer example name, a printf check) stopping the test
//     build of code that compiles: the plan's go test commands get -vet=off, as
//     Debian's dh-golang runs them, and the tests follow;
//   - go-module-gopath: a Go module build that cannot fetch a module go.mod requires
//     (the proxy refuses the version, no network), or cannot use one because go.sum
//     has no entry for it (a tarball without go.sum, offline), is built in Debian's
//     GOPATH mode over /usr/share/gocode, when the distribution's golang-*-dev
//     Build-Depends install that module;
//   - go-pointer-api: a GOPATH build against a packaged library whose API turned a
//     value into a pointer or back gets &X or X for *X at the operands the compiler
//     names, as recorded patches;
//   - go-portable-tags: a Go implementation only in another architecture's assembly
//     is built with the module's portable tags (purego, noasm);
//   - cmake-missing-subdir: an add_subdirectory() of a directory the tarball lacks (a
//     repacked source without its vendored googletest or benchmark) configures with the
//     build's switch for the distro's copy of the framework, installed by the plan, or
//     else with the option that gates the call off when what it adds is tests,
//     benchmarks, examples, docs or fuzzers (the CMakeLists.txt is read, never run);
//     a framework no option gates gets a CMakeLists.txt in its missing directory that
//     imports the distro's copy under the vendored target names ([IsFrameworkImport]),
//     a stripped bundled library no option gates (libdivsufsort, whose -dev package the
//     distribution's Build-Depends or the Contents index name) one whose interface
//     targets, named as those the project links and defines nowhere, link the installed
//     library found by find_library() ([IsLibraryImport]), and a configure-time file(DOWNLOAD) of a framework is answered like its directory;
//     a FetchContent population that fails offline, found by its call stack, also
//     gets the distro's copy through FetchContent's own settings
//     (FETCHCONTENT_SOURCE_DIR_<NAME>, FETCHCONTENT_TRY_FIND_PACKAGE_MODE);
//   - cmake-optional-package: a find_package() that found nothing installs a test
//     framework the distro packages (the tests stay), or configures off the option of
//     the part that needs it when that part is docs, tests, examples and the like
//     (Doxygen for the API docs);
//   - meson-missing-subproject: a dependency() fallback or subproject() that the
//     tarball (subprojects/ stripped) or the offline sandbox (a wrap to download)
//     cannot provide: the distro package of the dependency's pkg-config module, else
//     the get_option() that gates the call off for tests, benchmarks, examples or docs;
//   - libatomic: undefined __atomic_* libcalls (16-byte and generic atomics, which
//     riscv64 has no instructions for, and sub-word atomics of older compilers) link
//     libatomic through the build system's own variables (LIBS at configure time,
//     CMAKE_*_LINKER_FLAGS, meson's link_args, CGO_LDFLAGS, make's LDLIBS);
//   - link-as-needed-order: undefined references, functions and data alike, that the
//     libraries the link line names before its objects define every one of (dares'
//     "LDFLAGS = -Wall -lncurses -lmagic" before $(OBJ), dropped by Debian's
//     --as-needed; ncurses' LINES and stdscr are libtinfo's, reached through the ld
//     script libncurses.so): make's command line sets the Makefile's variable to its
//     own value inside -Wl,--push-state,--no-as-needed ... -Wl,--pop-state;
//   - link-library: undefined references at link time that one shared library of an
//     installed package (the plan's, an earlier fix's or a Build-Depends) defines
//     every one of ([LibraryFunc] reads the lib*.so links' dynamic symbols in the
//     sandbox, data and functions, and an ld script's members for the script) link
//     that library through the same variables (a repack that strips a bundled
//     library: cohomcalg's polylib is -lpolylib64), and so does the library ld's
//     "DSO missing from command line" names (libmpc's -lm before the archive that
//     needs pow);
//   - go-no-race: Go's -race or -msan, which linux/riscv64 lacks, are dropped
//     from the plan's go commands, overridden in the Makefile's variable on make's
//     command line, or removed from a build file with a recorded edit;
//   - catch2-compat: tests written for Catch2 2's single header (<catch2/catch.hpp>,
//     "catch.hpp") where Catch2 3 is installed, or named by the plan or the
//     Build-Depends, and the tree has no copy: a compat header written into the tree
//     as a recorded file (catch_all.hpp, Approx and the matchers where Catch2 2 had
//     them, a weak main() running Catch::Session in each unit that defines
//     CATCH_CONFIG_MAIN), its directory on CPATH; refused for Catch2 2 reporters,
//     listeners, matcher internals and its Contains matcher, and for a find_package()
//     asking for Catch2 2;
//   - catch2-sigstksz: a vendored Catch2 2 single header older than 2.13.5, whose
//     fatal-signal handler sizes a static array with SIGSTKSZ (no constant since glibc
//     2.34), gets -DCATCH_CONFIG_NO_POSIX_SIGNALS, Catch2's switch that leaves the
//     handler out, through the build system's C++ flags; the header's version and
//     switch are read first, and any other code with the same error is refused;
//   - missing-package: a missing header, library, pkg-config module, program, CMake
//     package (find_package() in config mode: NameConfig.cmake or name-config.cmake
//     below usr/lib or usr/share) or, for a GOPATH build, Go package is looked up in the
//     archive's Contents index ([Contents]; a Go import path by its directory below
//     usr/share/gocode/src, or by the Go-Import-Path of the distribution's sources,
//     [GoPackageFunc]) and its package installed;
//   - make-goal-without-tool: a top-level make whose default goal's prerequisite runs
//     a program the platform lacks and no rule installed (dares' "all : qt ncurses",
//     qt's qmake not found, Error 127) runs make with the other prerequisites as
//     goals, naming the one left out;
//   - go-import-major: a GOPATH build's import of a major version no distribution
//     package installs (gopkg.in/yaml.v1) is rewritten, by recorded patches, to the
//     major the Build-Depends or the plan install (gopkg.in/yaml.v2);
//   - header-subdir: an #include the compiler could not resolve that the distribution
//     installs in a directory of its own (a repacked tarball's dropped doctest.h is
//     /usr/include/doctest/doctest.h) is searched for in the sandbox ([LocateFunc]),
//     after installing the package the tables or the source's Build-Depends name for
//     it; only a file of such a package is taken, and its directory goes on CPATH for
//     every command of the plan, which the compiler reads under any build system;
//   - template-header: a missing #include whose template is in the tree (X.in,
//     X.cmake.in, X.cmake, X.in.h: commit.h.in that the CMakeLists.txt configures
//     only in a git checkout) is created where the build looks for it (the
//     configure_file()'s output, beside a quoted include's file, beside the template),
//     as a recorded file, with configure_file's substitutions: the top-level
//     project()'s name and version and the plain set()s that always run are known,
//     the rest is empty; refused for an autoheader config.h.in, a template configure.ac
//     lists and an unknown value outside a string literal; an example configuration the
//     package ships for its user to copy (X.example, X.sample, X.dist, X.default: lwip's
//     lwipcfg.h.example) is copied unchanged;
//   - make-generated-header: a missing #include that the Makefile beside the file
//     including it has a rule with a recipe for (cubature's clencurt.h, which the
//     repack strips and its CMake build does not generate) is made first, make with
//     the header as its goal, as a step of the plan before the failing command;
//   - perl-dot-inc: a build script that requires a file of its own by a bare name,
//     which Perl 5.26 no longer finds in the current directory (libradsec's
//     convert.pl and common.pl), runs with PERL_USE_UNSAFE_INC=1 when the file is in
//     the tree beside the script;
//   - simd-option-off: another architecture's intrinsics header missing (libsquish's
//     xmmintrin.h, which its BUILD_SQUISH_WITH_SSE2 option selects): the CMake option
//     named for the instruction set, ON by default and tested in an if(), configured
//     OFF, or configure's --disable switch of that name;
//   - arch-name-chain: after distribution-patched-file (the distribution's own patch
//     first), a platform header's #if/#elif chain of architectures whose branches only
//     name each one (string #defines of the macro its #error tests: openarena's
//     ARCH_STRING) and that stops with #error "Architecture not supported" gets a
//     riscv64 branch naming it "riscv64", in the chain inside a __linux__ test when there
//     are several;
//   - configure-explicit-prefix: a configure script that refuses the default prefix
//     and says which to give (guile-cairo: "./configure --prefix=/usr") runs with it;
//   - parallel-make-race: a race of parallel jobs reruns the failing phase serially;
//   - next-build-system: a wrongly chosen build system gives way to the next detected
//     system's default plan, never to one in a secondary directory (bindings, extras,
//     examples, tests, docs, tools);
//   - header-only-tests: the one rule that answers a failed verification
//     ([PhaseVerify], [Rule.Verify]): a header-only library whose test programs are not
//     built (the install step staged headers and nothing else, so no program compiled
//     from them proves it) is configured with its tests on (the CMake option or
//     BUILD_TESTING that gates its test directory or targets, read from the
//     CMakeLists.txt files; meson's tests option), with the distro's test framework its
//     tests look for and the -dev packages of the source's Build-Depends installed;
//   - distribution-configure: a source the distribution packages (a repacked Debian
//     tarball: spdlog's +ds lacks its bundled fmt) that fails to configure or build,
//     when no rule before it helped, is configured the way the distribution's packaging
//     does: the feature switches of its debian/rules for the plan's build system (never
//     places, the build type or anything the build files do not name), with its
//     Build-Depends installed (a plain make build gets the packages alone); once per
//     run ([DistributionFunc] says how the distribution builds the source);
//   - distribution-patches: a source the distribution packages that still fails where
//     no rule helped (gengetopt's repack strips doc/, which Debian's 9001-dfsg.patch
//     drops from SUBDIRS and AC_CONFIG_FILES) gets the patches of the packaging's
//     debian/patches/series applied in order, as dpkg-source does before every Debian
//     build, each rewritten for patch -p1 (its level stripped, names kept inside the
//     tree, patches of debian/ itself and git binary patches left out), and autoreconf
//     -fi before ./configure when they change configure.ac, a Makefile.am or m4 files;
//     once per run;
//   - failing-part-off: after every other rule, a compile error in a directory a CMake
//     build adds for its tests, benchmarks, examples or docs (belcard's tester/
//     includes bctoolbox/tester.h, which no installed package has) is configured off
//     through the option that gates that directory or one above it, never one an
//     earlier fix turned on for the evidence it gives.
//
// [Claims] says without I/O which rules answer a failure; [Propose] makes the fix.
// [Run] is the whole scripted repair of one failure as the pipeline's fix node uses it:
// the fixes corrected for the platform, validated like a model's strategy, applied by
// the caller (so exactly as a model's are) and recorded as attempts, one rule per error.
// [Index] opens the Contents index lazily, once per pipeline. The package is separate
// from the pipeline so the rules and their bookkeeping are tested without a run, and
// take only what they read: the failure, the tree, the sandbox's gate, a finder.
package repair
