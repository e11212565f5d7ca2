package knowledge

import "strings"

// aliases maps names as build files write them (CMake package names, pkg-config modules,
// linker library names, crate names) to canonical dependency names. Keys are lower case.
var aliases = map[string]string{
	"z": "zlib", "libz": "zlib", "zlib1g": "zlib",
	"ssl": "openssl", "crypto": "openssl", "libssl": "openssl", "libcrypto": "openssl",
	"libcurl": "curl", "curl": "curl",
	"libxml2": "xml2", "libxml-2.0": "xml2", "libxml": "xml2", "xml2": "xml2",
	"libxslt": "xslt", "libexslt": "xslt", "exslt": "xslt",
	"yaml-0.1": "yaml", "libyaml": "yaml",
	"libffi":   "ffi",
	"ncursesw": "ncurses", "curses": "ncurses", "cursesw": "ncurses", "tinfo": "ncurses",
	"panel": "ncurses", "menu": "ncurses", "form": "ncurses", "panelw": "ncurses",
	"sqlite3": "sqlite", "libsqlite3": "sqlite",
	"libpcre2-8": "pcre2", "libpcre2-16": "pcre2", "libpcre2-32": "pcre2", "pcre2-8": "pcre2",
	"pcre2-16": "pcre2", "pcre2-32": "pcre2", "libpcre2-posix": "pcre2", "pcre2-posix": "pcre2",
	"libprotobuf": "protobuf", "protobuf-lite": "protobuf", "libprotobuf-lite": "protobuf",
	"googletest": "gtest", "gtest_main": "gtest", "gmock_main": "gmock",
	"liblz4": "lz4", "libzstd": "zstd",
	"bzip2": "bz2", "libbz2": "bz2",
	"liblzma": "lzma", "xz": "lzma",
	"libexpat": "expat",
	"libuuid":  "uuid",
	"jsonc":    "json-c", "libjson-c": "json-c",
	"libcjson": "cjson",
	"libpng":   "png", "libpng16": "png", "png16": "png",
	"libjpeg": "jpeg", "turbojpeg": "jpeg", "libturbojpeg": "jpeg",
	"libtiff-4": "tiff", "libtiff": "tiff", "libtiff4": "tiff",
	"freetype2": "freetype",
	"glib-2.0":  "glib", "gobject-2.0": "glib", "gio-2.0": "glib", "gthread-2.0": "glib",
	"gmodule-2.0": "glib", "glib2": "glib",
	"libevent": "event", "event_core": "event", "event_extra": "event", "event_pthreads": "event",
	"libevent_core": "event", "libevent_extra": "event", "libevent_pthreads": "event",
	"libuv": "uv", "libev": "ev", "libpcap": "pcap", "libcap": "cap",
	"libseccomp": "seccomp", "libattr": "attr", "libacl": "acl", "libpam": "pam",
	"libbsd": "bsd", "libelf": "elf", "libunwind": "unwind", "libnuma": "numa",
	"libgcrypt": "gcrypt", "libsodium": "sodium",
	"mbedcrypto": "mbedtls", "mbedx509": "mbedtls", "mbedtls": "mbedtls",
	"libnghttp2": "nghttp2", "libssh2": "ssh2", "libssh": "ssh",
	"libarchive": "archive", "libmagic": "magic",
	"libedit": "edit", "editline": "edit", "libeditline": "edit", "opengl": "gl", "libgl": "gl", "libx11": "x11",
	"eigen3": "eigen", "nlohmann_json": "nlohmann-json", "onetbb": "tbb",
	"lua5.4": "lua", "lua54": "lua", "lua-5.4": "lua", "lua5.3": "lua", "lua-5.3": "lua",
	"icu-uc": "icu", "icu-i18n": "icu", "icuuc": "icu", "icui18n": "icu", "icudata": "icu",
	"icu-io":    "icu",
	"oniguruma": "onig", "grpc++": "grpc", "libgrpc": "grpc",
	"libbrotlienc": "brotli", "libbrotlidec": "brotli", "libbrotlicommon": "brotli",
	"brotlienc": "brotli", "brotlidec": "brotli", "brotlicommon": "brotli",
	"gssapi_krb5": "krb5", "krb5-gssapi": "krb5", "mit-krb5": "krb5",
	"pq": "postgresql", "libpq": "postgresql", "postgres": "postgresql",
	"mysqlclient": "mysql", "mariadb": "mysql", "libmariadb": "mysql", "mysql": "mysql",
	"libzmq": "zmq", "zeromq": "zmq", "libmicrohttpd": "microhttpd",
	"libgit2": "git2", "libwebsockets": "websockets",
	"fftw3": "fftw", "fftw3f": "fftw", "openblas": "blas", "cblas": "blas",
	"bdw-gc": "gc", "libgc": "gc", "libgmp": "gmp", "libmpfr": "mpfr",
	"cairo": "cairo", "sdl2": "sdl2", "libsdl2": "sdl2", "sdl": "sdl", "libsdl": "sdl", "sdl12": "sdl",
	"pkgconfig": "pkg-config", "python3": "python3", "python": "python3",
	"pythoninterp": "python3", "pythonlibs": "python3-dev", "python3-embed": "python3-dev",
	"protoc": "protoc", "libclang": "libclang",
	"libcheck": "check", "libcmocka": "cmocka", "libcunit": "cunit",
	"libglog": "glog", "libgflags": "gflags",
	// Rust crates that link a system library or need a system tool.
	"openssl-sys": "openssl", "libz-sys": "zlib", "curl-sys": "curl",
	"libsqlite3-sys": "sqlite", "rusqlite": "sqlite", "zstd-sys": "zstd",
	"bzip2-sys": "bz2", "lzma-sys": "lzma", "xz2": "lzma", "libgit2-sys": "git2",
	"pkg-config": "pkg-config", "bindgen": "libclang", "prost-build": "protoc",
	"tonic-build": "protoc", "protobuf-codegen": "protoc", "libffi-sys": "ffi",
	"expat-sys": "expat", "freetype-sys": "freetype", "libssh2-sys": "ssh2",
	"pcre2-sys": "pcre2", "onig_sys": "onig", "libsodium-sys": "sodium",
	"pq-sys": "postgresql", "mysqlclient-sys": "mysql", "sdl2-sys": "sdl2",
	"lz4-sys": "lz4", "git2": "git2", "ssh2": "ssh2",
	// The openssl and native-tls crates link the system OpenSSL on Linux.
	"openssl": "openssl", "native-tls": "openssl",
}

// ignoredDeps are libraries every toolchain provides (libc, libm, threads, libatomic,
// OpenMP of GCC) and so are not dependencies to install.
var ignoredDeps = map[string]bool{
	"threads": true, "pthread": true, "pthreads": true, "m": true, "dl": true, "rt": true,
	"c": true, "stdc++": true, "gcc": true, "gcc_s": true, "atomic": true, "util": true,
	"resolv": true, "nsl": true, "socket": true, "openmp": true, "omp": true, "gomp": true,
	"iconv": true, "intl": true, "libc": true, "libm": true, "supc++": true, "c++": true,
	"gcov": true, "rt.so": true, "execinfo": true,
}

// Canonical returns the canonical dependency name for a name as a build file writes it
// (ZLIB, libcurl, yaml-0.1, -lz's "z", openssl-sys). known reports whether the name is in
// the canonical package map; an unknown name comes back lower-cased. It returns "" for
// libraries every toolchain provides (pthread, m, dl, rt, atomic, ...).
func Canonical(name string) (canonical string, known bool) {
	n := strings.ToLower(strings.TrimSpace(name))
	n = strings.Trim(n, `"'[](){},;`)
	if n == "" || ignoredDeps[n] {
		return "", false
	}
	if c, ok := aliases[n]; ok {
		return c, true
	}
	if strings.HasPrefix(n, "boost_") || strings.HasPrefix(n, "boost-") {
		return "boost", true
	}
	if isCanonical(n) {
		return n, true
	}
	if s, ok := strings.CutPrefix(n, "lib"); ok && s != "" {
		if c, ok := aliases[s]; ok {
			return c, true
		}
		if isCanonical(s) {
			return s, true
		}
	}
	return n, false
}

func isCanonical(n string) bool {
	for _, r := range canonicalPackages {
		if r.canonical == n {
			return true
		}
	}
	return false
}
