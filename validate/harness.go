package validate

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"sort"
	"strconv"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// MaxHarnessBytes is the largest harness source accepted.
const MaxHarnessBytes = 32000

// CheckMarker is the text a harness must print on its result line.
const CheckMarker = "ATESOR-CHECK"

// HarnessOption tells [Harness] about the library the harness exercises.
type HarnessOption func(*harnessConfig)

type harnessConfig struct {
	crate   string
	exports map[string]bool
}

// WithCrate names the Rust crate a Rust example must use ("my-crate" and "my_crate" are
// the same crate). Harness refuses a Rust harness without it.
func WithCrate(name string) HarnessOption {
	return func(c *harnessConfig) { c.crate = strings.ReplaceAll(strings.TrimSpace(name), "-", "_") }
}

// WithExports gives the functions the library exports (from its dynamic symbol table, for
// example). A C/C++ harness must then call one of them; without it, the harness must call
// one of the functions it lists in Harness.Functions.
func WithExports(names []string) HarnessOption {
	return func(c *harnessConfig) {
		if c.exports == nil {
			c.exports = map[string]bool{}
		}
		for _, n := range names {
			c.exports[n] = true
		}
	}
}

// Forbidden calls and imports. They make a measurement non-deterministic or reach out of
// the sandbox (processes, network).
var (
	cForbiddenCalls = map[string]bool{
		"system": true, "popen": true, "rand": true, "srand": true, "random": true, "srandom": true,
		"rand_r": true, "drand48": true, "srand48": true, "lrand48": true, "fork": true, "vfork": true,
		"execl": true, "execlp": true, "execle": true, "execv": true, "execvp": true, "execve": true,
		"execvpe": true, "posix_spawn": true, "posix_spawnp": true, "socket": true, "connect": true,
		"bind": true, "listen": true, "accept": true, "gethostbyname": true, "getaddrinfo": true,
		"random_device": true, "kill": true, "dlopen": true, "dlsym": true, "dlvsym": true, "syscall": true,
		"fexecve": true, "execveat": true, "ptrace": true, "clone": true, "clone3": true, "unshare": true,
		"setns": true, "socketpair": true, "sendto": true, "recvfrom": true, "sendmsg": true, "recvmsg": true,
		"__libc_system": true, "getrandom": true,
	}
	cForbiddenHeaders  = []string{"sys/socket.h", "netinet/", "arpa/", "netdb.h", "spawn.h", "curl/", "random"}
	goForbiddenImports = []string{"os/exec", "net", "syscall", "golang.org/x/sys", "golang.org/x/net", "math/rand", "crypto/rand", "crypto/tls",
		"plugin", "os/signal", "C", "unsafe", "runtime/cgo", "internal", "google.golang.org/grpc"}
	goForbiddenCalls = map[string]map[string]bool{
		"time": {"Now": true, "Since": true, "Until": true},
		"os":   {"StartProcess": true, "Getpid": true, "FindProcess": true},
	}
	rustForbidden = []string{"std::net", "std::process", "Command::new", "TcpStream", "TcpListener",
		"UdpSocket", "rand::", "thread_rng", "SystemTime::now", "libc::", "reqwest", "tokio::net", "hyper::",
		"asm!", "global_asm!", "extern \"", "extern {", "#[link", "dlopen", "libloading", "std::os::unix::process",
		"rustls", "native_tls", "openssl::"}
)

// Harness checks a harness the optimizer agent wrote: at most 32000 bytes, a filename
// inside the repository with the language's extension (a Go file is a _test.go file),
// it prints an ATESOR-CHECK line, and it makes no forbidden call (system, popen, rand,
// srand, fork/exec, sockets, time.Now, os/exec, net, std::net::, std::process::, ...).
// A C or C++ harness has a main function and calls a library function: one of
// [WithExports] when given, else one it lists in Functions. A Go file defines
// func BenchmarkAtesor(b *testing.B). A Rust example has fn main and uses the crate named
// with [WithCrate].
func Harness(h *atesor.Harness, opts ...HarnessOption) error {
	var cfg harnessConfig
	for _, o := range opts {
		o(&cfg)
	}
	if h == nil {
		return reject(ruleHarness, "", "the answer is empty", `answer {"language": "c", "filename": "...", "code": "...", "functions": [...]}`)
	}
	if len(h.Code) > MaxHarnessBytes {
		return reject(ruleHarness, h.Filename, fmt.Sprintf("the code has %d bytes, more than %d", len(h.Code), MaxHarnessBytes), "write a smaller harness that exercises the hot functions")
	}
	if strings.TrimSpace(h.Code) == "" {
		return reject(ruleHarness, h.Filename, "the code is empty", "give the complete source file")
	}
	if !strings.Contains(h.Code, CheckMarker) {
		return reject(ruleHarness, h.Filename, "the code never prints an "+CheckMarker+" line", `print one line "`+CheckMarker+` <checksum of the results>" so the run can be checked`)
	}
	if why := repoRelative(h.Filename, ""); why != "" {
		return reject(ruleHarness, h.Filename, "the filename is not a repository path: "+why, "use a relative filename such as atesor_bench.c")
	}
	lang := strings.ToLower(strings.TrimSpace(h.Language))
	ext := path.Ext(h.Filename)
	switch lang {
	case "c":
		if ext != ".c" {
			return reject(ruleHarness, h.Filename, "a C harness needs a .c filename", "name it atesor_bench.c")
		}
		return cHarness(h, cfg)
	case "cpp", "c++", "cxx":
		if ext != ".cc" && ext != ".cpp" && ext != ".cxx" && ext != ".C" {
			return reject(ruleHarness, h.Filename, "a C++ harness needs a .cc or .cpp filename", "name it atesor_bench.cpp")
		}
		return cHarness(h, cfg)
	case "go":
		if !strings.HasSuffix(h.Filename, "_test.go") {
			return reject(ruleHarness, h.Filename, "a Go benchmark must be a _test.go file", "name it atesor_bench_test.go")
		}
		return goHarness(h)
	case "rust":
		if ext != ".rs" {
			return reject(ruleHarness, h.Filename, "a Rust example needs a .rs filename", "name it examples/atesor_bench.rs")
		}
		return rustHarness(h, cfg)
	}
	return reject(ruleHarness, h.Language, "unknown harness language", "use c, cpp, go or rust")
}

func cHarness(h *atesor.Harness, cfg harnessConfig) error {
	for _, line := range strings.Split(h.Code, "\n") {
		t := strings.TrimSpace(line)
		if !strings.HasPrefix(t, "#") || !strings.Contains(t, "include") {
			continue
		}
		for _, bad := range cForbiddenHeaders {
			if strings.Contains(t, "<"+bad) || strings.Contains(t, `"`+bad) {
				return reject(ruleHarness, t, "the header gives network, process or random-number APIs", "include only the library's headers and the C standard library for I/O and memory")
			}
		}
	}
	code := scrub(h.Code, false)
	if strings.Contains(code, "##") {
		return reject(ruleHarness, h.Filename, "the code pastes tokens (##), which can spell a forbidden call the rules cannot see", "write calls out by name")
	}
	for _, kw := range []string{"asm", "__asm", "__asm__"} {
		if identsUsed(code)[kw] {
			return reject(ruleHarness, kw, "inline assembly can make system calls the rules cannot see", "write the harness in plain C or C++")
		}
	}
	calls := calledIdents(code)
	// A forbidden function may not be named at all: a function pointer to it
	// (p = system; p(cmd)) calls it as surely as a direct call.
	for name := range identsUsed(code) {
		if cForbiddenCalls[name] {
			return reject(ruleHarness, name+"()", "the function is forbidden (called directly or through a pointer): it makes the measurement non-deterministic or leaves the sandbox", "use fixed inputs generated by a simple deterministic loop")
		}
	}
	if !calls["main"] {
		return reject(ruleHarness, h.Filename, "there is no main function", "write a complete program with int main(void)")
	}
	var listed []string
	for _, f := range h.Functions {
		if calls[f] {
			listed = append(listed, f)
		}
	}
	if len(cfg.exports) > 0 {
		for name := range calls {
			if cfg.exports[name] {
				return nil
			}
		}
		return reject(ruleHarness, h.Filename, "the harness calls no exported function of the library", "call the library's public functions (for example "+someKeys(cfg.exports, 5)+")")
	}
	if len(h.Functions) == 0 {
		return reject(ruleHarness, h.Filename, "functions lists no library function", "list the library functions the harness calls in \"functions\"")
	}
	if len(listed) == 0 {
		return reject(ruleHarness, h.Filename, "the code calls none of the listed functions ("+strings.Join(h.Functions, ", ")+")", "call the library functions you list")
	}
	return nil
}

func someKeys(m map[string]bool, n int) string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	if len(out) > n {
		out = out[:n]
	}
	return strings.Join(out, ", ")
}

func goHarness(h *atesor.Harness) error {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, h.Filename, h.Code, parser.SkipObjectResolution)
	if err != nil {
		return reject(ruleHarness, h.Filename, "the Go code does not parse: "+err.Error(), "give a complete, valid Go test file")
	}
	names := map[string]string{}
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		for _, bad := range goForbiddenImports {
			if p == bad || strings.HasPrefix(p, bad+"/") {
				return reject(ruleHarness, p, "the import is forbidden: it reaches processes, the network or random numbers", "use only the package under test, testing and fmt")
			}
		}
		local := path.Base(p)
		if im.Name != nil {
			local = im.Name.Name
		}
		names[local] = p
	}
	for _, cg := range f.Comments {
		for _, cm := range cg.List {
			if strings.HasPrefix(cm.Text, "//go:linkname") || strings.HasPrefix(cm.Text, "//go:cgo_") {
				return reject(ruleHarness, cm.Text, "the directive reaches functions the imports do not show", "use only the package under test, testing and fmt")
			}
		}
	}
	found := false
	var bad string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Name.Name == "BenchmarkAtesor" && n.Recv == nil && n.Type.Params != nil && len(n.Type.Params.List) == 1 {
				found = true
			}
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && names[id.Name] == "C" && bad == "" {
				bad = "C." + n.Sel.Name
			}
			if id, ok := n.X.(*ast.Ident); ok {
				if calls, ok := goForbiddenCalls[names[id.Name]]; ok && calls[n.Sel.Name] && bad == "" {
					bad = names[id.Name] + "." + n.Sel.Name
				}
			}
		}
		return true
	})
	if bad != "" {
		return reject(ruleHarness, bad, "the call is forbidden: it makes the measurement non-deterministic or reaches processes", "let the testing package time the benchmark")
	}
	if !found {
		return reject(ruleHarness, h.Filename, "there is no func BenchmarkAtesor(b *testing.B)", "define func BenchmarkAtesor(b *testing.B) that loops b.N times")
	}
	return nil
}

func rustHarness(h *atesor.Harness, cfg harnessConfig) error {
	code := scrub(h.Code, true)
	for _, bad := range rustForbidden {
		if strings.Contains(code, bad) {
			return reject(ruleHarness, bad, "it is forbidden: it reaches processes, the network, the clock or random numbers", "use fixed inputs and std::hint::black_box")
		}
	}
	if !strings.Contains(code, "fn main") {
		return reject(ruleHarness, h.Filename, "there is no fn main", "write a complete example with fn main()")
	}
	if cfg.crate == "" {
		return fmt.Errorf("validate: a Rust harness needs the crate name: pass validate.WithCrate")
	}
	if !strings.Contains(code, "use "+cfg.crate) && !strings.Contains(code, cfg.crate+"::") && !strings.Contains(code, "extern crate "+cfg.crate) {
		return reject(ruleHarness, h.Filename, "the example does not use the crate "+cfg.crate, "use "+cfg.crate+"::... and call its public functions")
	}
	return nil
}

// scrub blanks comments, string literals and character literals of C, C++ or Rust code,
// keeping line structure, so identifiers in them do not count as calls.
func scrub(code string, rust bool) string {
	b := []byte(code)
	n := len(b)
	blank := func(i, j int) {
		for k := i; k < j && k < n; k++ {
			if b[k] != '\n' {
				b[k] = ' '
			}
		}
	}
	for i := 0; i < n; {
		switch {
		case b[i] == '/' && i+1 < n && b[i+1] == '/':
			j := i
			for j < n && b[j] != '\n' {
				j++
			}
			blank(i, j)
			i = j
		case b[i] == '/' && i+1 < n && b[i+1] == '*':
			j := i + 2
			for j+1 < n && !(b[j] == '*' && b[j+1] == '/') {
				j++
			}
			j += 2
			blank(i, j)
			i = j
		case b[i] == '"':
			j := i + 1
			for j < n && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			blank(i+1, j)
			i = j + 1
		case b[i] == '\'' && (!rust || i+2 < n && (b[i+2] == '\'' || b[i+1] == '\\')):
			j := i + 1
			for j < n && b[j] != '\'' && b[j] != '\n' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			blank(i+1, j)
			i = j + 1
		default:
			i++
		}
	}
	return string(b)
}

// calledIdents returns the identifiers followed by ( that are not member calls.
func calledIdents(code string) map[string]bool {
	out := map[string]bool{}
	eachIdent(code, func(name string, next byte) {
		if next == '(' || name == "random_device" {
			out[name] = true
		}
	})
	return out
}

// identsUsed returns every identifier of scrubbed C code (not member names after . or
// ->), called or not.
func identsUsed(code string) map[string]bool {
	out := map[string]bool{}
	eachIdent(code, func(name string, _ byte) { out[name] = true })
	return out
}

// eachIdent calls fn for every identifier of scrubbed C code that is not a member name
// (after . or ->), with the first character after it that is not white space (0 at the
// end).
func eachIdent(code string, fn func(name string, next byte)) {
	isIdent := func(c byte) bool {
		return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	for i := 0; i < len(code); {
		if !isIdent(code[i]) || code[i] >= '0' && code[i] <= '9' {
			i++
			continue
		}
		j := i
		for j < len(code) && isIdent(code[j]) {
			j++
		}
		k := j
		for k < len(code) && (code[k] == ' ' || code[k] == '\t' || code[k] == '\n') {
			k++
		}
		p := i - 1
		for p >= 0 && (code[p] == ' ' || code[p] == '\t') {
			p--
		}
		member := p >= 0 && (code[p] == '.' || p > 0 && code[p] == '>' && code[p-1] == '-')
		if !member {
			var next byte
			if k < len(code) {
				next = code[k]
			}
			fn(code[i:j], next)
		}
		i = j
	}
}
