package knowledge

import (
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
)

func TestCorrectInstallCommand(t *testing.T) {
	deb, _ := Profile("debian")
	alp, _ := Profile("alpine")
	tests := []struct {
		name string
		p    string
		in   string
		want string
	}{
		{"debian apt", "debian", "apt-get install -y zlib-dev openssl-dev", "apt-get install -y zlib1g-dev libssl-dev"},
		{"chained and sudo", "debian", "apt-get update && sudo apt-get install -y --no-install-recommends zlib-dev  build-base", "apt-get update && sudo apt-get install -y --no-install-recommends zlib1g-dev  build-essential"},
		{"version suffix", "debian", "apt-get install -y openssl-dev=3.0 xz-dev:riscv64", "apt-get install -y libssl-dev=3.0 liblzma-dev:riscv64"},
		{"correct names kept", "debian", "apt-get install -y zlib1g-dev", "apt-get install -y zlib1g-dev"},
		{"not an install", "debian", "echo zlib-dev && apt-cache show zlib-dev", "echo zlib-dev && apt-cache show zlib-dev"},
		{"quoted words kept", "debian", `apt-get install -y "zlib-dev" $PKG`, `apt-get install -y "zlib-dev" $PKG`},
		{"apt-get -y before install", "debian", "DEBIAN_FRONTEND=noninteractive apt-get -y install zlib-dev;make", "DEBIAN_FRONTEND=noninteractive apt-get -y install zlib1g-dev;make"},
		{"alpine apk", "alpine", "apk add --no-cache liblzma-dev zlib1g-dev libssl-dev", "apk add --no-cache xz-dev zlib-dev openssl-dev"},
		{"alpine apk update first", "alpine", "apk update && apk add build-essential|tee log", "apk update && apk add build-base|tee log"},
		{"comment", "debian", "apt-get install -y zlib-dev # openssl-dev", "apt-get install -y zlib1g-dev # openssl-dev"},
		{"env and sudo options", "debian", "sudo -E env DEBIAN_FRONTEND=noninteractive apt-get install -y zlib-dev", "sudo -E env DEBIAN_FRONTEND=noninteractive apt-get install -y zlib1g-dev"},
		{"option value not a package", "debian", "apt-get -o Dpkg::Options::=--force-confnew install -y zlib-dev", "apt-get -o Dpkg::Options::=--force-confnew install -y zlib1g-dev"},
		{"in a command substitution", "debian", "echo $(apt-get install -y zlib-dev)", "echo $(apt-get install -y zlib1g-dev)"},
		{"escaped word kept", "debian", `apt-get install -y zlib\-dev`, `apt-get install -y zlib\-dev`},
		{"a line that does not parse is kept", "debian", "apt-get install -y zlib-dev 'unclosed", "apt-get install -y zlib-dev 'unclosed"},
		{"another program's words", "debian", "dpkg -s zlib-dev && apt-cache policy zlib-dev", "dpkg -s zlib-dev && apt-cache policy zlib-dev"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := deb
			if tt.p == "alpine" {
				p = alp
			}
			if got := CorrectInstallCommand(p, tt.in); got != tt.want {
				t.Errorf("CorrectInstallCommand(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzCorrectInstallCommand(f *testing.F) {
	for _, s := range []string{
		"apt-get install -y zlib-dev openssl-dev", "apk add --no-cache zlib1g-dev", "apt-get -o X=1 install 'a' \"b", `sudo apt install \zlib-dev`,
		"apt-get update && apt-get install -y xz-dev|cat", "((apt-get install zlib-dev))", "apk add zlib1g-dev=1.2 build-essential>1",
	} {
		f.Add(s)
	}
	deb, _ := Profile("debian")
	alp, _ := Profile("alpine")
	f.Fuzz(func(t *testing.T, line string) {
		for _, pf := range [...]string{"debian", "alpine"} {
			p := deb
			if pf == "alpine" {
				p = alp
			}
			once := CorrectInstallCommand(p, line)
			if twice := CorrectInstallCommand(p, once); twice != once {
				t.Fatalf("%s: not idempotent: %q -> %q -> %q", pf, line, once, twice)
			}
			if !strings.Contains(line, "apt") && !strings.Contains(line, "apk") && once != line {
				t.Fatalf("%s: changed a line without an install command: %q -> %q", pf, line, once)
			}
		}
	})
}

// TestCorrectedPlanCopies: the corrections make copies (a plan may be shared with a
// cache entry or a rule's fix) and reach every command of a plan, a strategy and an
// investigation, nothing else.
func TestCorrectedPlanCopies(t *testing.T) {
	p, err := Profile("debian")
	if err != nil {
		t.Fatal(err)
	}
	orig := atesor.BuildPlan{Phases: []atesor.Phase{{Name: "deps", Commands: []string{"apt-get install -y zlib-dev"}}}}
	got := CorrectedPlan(p, orig)
	if got.Phases[0].Commands[0] != "apt-get install -y zlib1g-dev" {
		t.Errorf("corrected plan = %+v", got)
	}
	if orig.Phases[0].Commands[0] != "apt-get install -y zlib-dev" {
		t.Errorf("the original plan (shared with a cache entry) was changed: %+v", orig)
	}
	acts := []atesor.Action{{Type: atesor.ActionCommand, Command: "sudo apt-get install -y openssl-dev"}, {Type: atesor.ActionCreateFile, Path: "zlib-dev", Content: "x"}}
	fixed := CorrectedActions(p, acts)
	if fixed[0].Command != "sudo apt-get install -y libssl-dev" || fixed[1].Path != "zlib-dev" || acts[0].Command != "sudo apt-get install -y openssl-dev" {
		t.Errorf("corrected actions = %+v (from %+v)", fixed, acts)
	}
	fp := &atesor.FixProposal{Investigate: &atesor.Investigation{Commands: []string{"apt-get install zlib-dev"}}, Strategies: []atesor.Strategy{{ID: "1", Actions: acts}}}
	CorrectProposal(p, fp)
	if fp.Investigate.Commands[0] != "apt-get install zlib1g-dev" || fp.Strategies[0].Actions[0].Command != "sudo apt-get install -y libssl-dev" {
		t.Errorf("corrected proposal = %+v", fp)
	}
}
