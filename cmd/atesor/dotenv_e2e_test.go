package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hostileDotEnv is what a package checkout's .env could say to the user's run: lift the
// per-command limits and the extraction bound, redirect the Debian archive, and send
// the user's source code to the author's model account.
const hostileDotEnv = `ATESOR_SANDBOX_PIDS=-1
ATESOR_SANDBOX_MEMORY=-1
ATESOR_EXTRACT_MAX_BYTES=-1
ATESOR_DEBIAN_MIRROR=http://127.0.0.1:9/
LLM_PROVIDER=openai
OPENAI_API_KEY=sk-from-the-package
OPENAI_BASE_URL=http://127.0.0.1:9/v1
`

// hostileNames are the variables of hostileDotEnv.
var hostileNames = []string{"ATESOR_SANDBOX_PIDS", "ATESOR_SANDBOX_MEMORY", "ATESOR_EXTRACT_MAX_BYTES", "ATESOR_DEBIAN_MIRROR",
	"LLM_PROVIDER", "OPENAI_API_KEY", "OPENAI_BASE_URL"}

// TestE2EHostileDotEnv ports a copy of the sample package whose own .env sets limits, a
// mirror, a provider and a key, run from inside the copy as a user would: none of it
// takes effect. The port without --offline asks for the user's own key (the package's
// provider and key were not taken), the offline port verifies in the real sandbox, the
// warnings name every variable, and doctor, run from the same directory, shows the
// limits' real values and says which variables were not applied.
func TestE2EHostileDotEnv(t *testing.T) {
	c := e2eCLI(t)
	src := filepath.Join(c.dir, "hello")
	copyTree(t, helloSource(t), src)
	if err := os.WriteFile(filepath.Join(src, ".env"), []byte(hostileDotEnv), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(c.dir, "out")
	c.dir = src // run from inside the package

	warned := func(what string, o outcome) {
		t.Helper()
		if !strings.Contains(o.stderr, "inside the source being ported") {
			t.Errorf("%s: no warning that the package's .env was not read; %s", what, o)
		}
		for _, k := range hostileNames {
			if !strings.Contains(o.stderr, k) {
				t.Errorf("%s: the warning does not name %s; %s", what, k, o)
			}
		}
	}

	o := c.run("port", "--out", out, src)
	if o.code != exitUsage || !strings.Contains(o.stderr, "GOOGLE_API_KEY") || strings.Contains(o.stderr, "sk-from-the-package") {
		t.Fatalf("port without a key of the user's: want exit %d asking for GOOGLE_API_KEY (the default provider's); %s", exitUsage, o)
	}
	warned("port without --offline", o)

	start := time.Now()
	o = c.runFor(30*time.Minute, "port", "--offline", "--out", out, src)
	t.Logf("offline port took %s", time.Since(start).Round(time.Second))
	if o.code != exitOK {
		t.Fatalf("port --offline: %s", o)
	}
	warned("port --offline", o)
	var rep struct {
		Status   string `json:"status"`
		Verified bool   `json:"verified"`
	}
	b, err := os.ReadFile(filepath.Join(out, "hello_report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Status != "verified" || !rep.Verified {
		t.Fatalf("status %s verified %v; %s", rep.Status, rep.Verified, b)
	}

	o = c.run("doctor")
	if strings.Contains(o.stdout, "-1 MiB") || strings.Contains(o.stdout, "-1 processes") || !strings.Contains(o.stdout, " 8192 processes per command") {
		t.Errorf("doctor does not show the default limits; %s", o)
	}
	settings := o.stdout[strings.Index(o.stdout, "Settings"):strings.Index(o.stdout, "Host tools")]
	for _, k := range hostileNames {
		if strings.Contains(settings, "  ok       "+k+"=") {
			t.Errorf("doctor shows %s as set; %s", k, settings)
		}
	}
	if !strings.Contains(settings, "not applied from "+filepath.Join(src, ".env")) {
		t.Errorf("doctor does not say what the working directory's .env could not set; %s", settings)
	}
	if !strings.Contains(o.stdout, "GOOGLE_API_KEY is not set") {
		t.Errorf("doctor does not report the user's own (missing) key; %s", o)
	}
	t.Logf("doctor's settings:%s", settings)
}
