package atesor

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDurationsInJSONAreSeconds(t *testing.T) {
	s := State{
		RunPart:    RunPart{RepoName: "zlib", Request: Request{Source: "zlib", TestTimeout: 90 * time.Second}},
		TestPart:   TestPart{Tests: &TestResult{Commands: []string{"make check"}, Duration: 12 * time.Second}},
		TimingPart: TimingPart{Timings: []NodeTiming{{Node: "build", Duration: 2500 * time.Millisecond}}, Duration: 95 * time.Second, SandboxTime: 80 * time.Second},
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"duration_seconds":95`, `"sandbox_seconds":80`, `"seconds":2.5`, `"test_timeout_seconds":90`, `"duration_seconds":12`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("state JSON lacks %s: %s", want, b)
		}
	}
	if strings.Contains(string(b), "000000000") {
		t.Errorf("state JSON has nanoseconds: %s", b)
	}
	var back State
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(s, back); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}

	others := []any{
		&Result{Package: "zlib", Duration: 3 * time.Second, Files: map[string]string{FileReport: "r"}},
		&CommandResult{Line: "make", Duration: 1200 * time.Millisecond},
		&Command{Line: "make", Timeout: 30 * time.Minute},
		&Variant{Name: "w", Median: time.Second, Min: 10 * time.Millisecond, Durations: []time.Duration{time.Second, 2 * time.Second}},
	}
	for _, v := range others {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `_seconds":`) || strings.Contains(string(b), "000000") {
			t.Errorf("%T JSON %s", v, b)
		}
	}
	var c CommandResult
	if err := json.Unmarshal([]byte(`{"line":"make","duration_seconds":1.25}`), &c); err != nil || c.Duration != 1250*time.Millisecond {
		t.Errorf("command result %+v (%v)", c, err)
	}
	var p Variant
	if err := json.Unmarshal([]byte(`{"median_seconds":0.5,"durations_seconds":[0.5,1]}`), &p); err != nil || p.Median != 500*time.Millisecond || len(p.Durations) != 2 {
		t.Errorf("performance %+v (%v)", p, err)
	}
}

func TestStatusFinal(t *testing.T) {
	for st, want := range map[Status]bool{StatusVerified: true, StatusTestsFailing: true, StatusCached: true, StatusNotVerified: true, StatusEscalated: true,
		StatusRunning: false, StatusPending: false, StatusBuilt: false, StatusBuildFailed: false, StatusFailed: false} {
		if st.Final() != want {
			t.Errorf("%s.Final() = %t", st, !want)
		}
	}
}
