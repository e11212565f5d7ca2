package atesor

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestStateReadsVersion1 loads a state.json written before the state had parts and a
// version (a verified fake-sandbox port with one patch fix) and writes it again: every
// key and value comes back the same, the only key added is state_version, and the parts
// are reached through the state's own field names.
func TestStateReadsVersion1(t *testing.T) {
	golden, err := os.ReadFile("testdata/state-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	var s State
	if err := json.Unmarshal(golden, &s); err != nil {
		t.Fatal(err)
	}
	if s.Version != 0 || s.RepoName != "vecsum" || !s.Verified || s.Status != StatusVerified ||
		len(s.FixAttempts) != 1 || !s.FixAttempts[0].Success || s.BuiltFixes != 1 || s.Attempts != 1 ||
		s.Plan == nil || s.Install == nil || s.Duration <= 0 || s.SandboxTime <= 0 || len(s.Timings) == 0 || s.Timings[0].Duration <= 0 {
		t.Fatalf("the version 1 state did not decode into its parts: %+v", s)
	}
	s.Version = StateVersion
	again, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	var want, got map[string]any
	if err := json.Unmarshal(golden, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(again, &got); err != nil {
		t.Fatal(err)
	}
	if v, ok := got["state_version"]; !ok || v != float64(StateVersion) {
		t.Errorf("state_version = %v, want %d", v, StateVersion)
	}
	delete(got, "state_version")
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the state written again differs from version 1 (-v1 +now):\n%s", d)
	}
}

// TestStatePartsAreFlat checks that no part adds a JSON level or a method that would
// take over the state's encoding: each part is an embedded struct without a JSON name
// and without methods.
func TestStatePartsAreFlat(t *testing.T) {
	st := reflect.TypeFor[State]()
	for i := range st.NumField() {
		f := st.Field(i)
		if !f.Anonymous || f.Type.Kind() != reflect.Struct || f.Tag.Get("json") != "" {
			t.Errorf("State.%s is not an embedded part without a JSON name", f.Name)
		}
		if n := f.Type.NumMethod() + reflect.PointerTo(f.Type).NumMethod(); n != 0 {
			t.Errorf("part %s has %d methods; a MarshalJSON there would replace the state's", f.Name, n)
		}
	}
}

// TestStateGobVersion1 round-trips the version 1 state, every part filled, through gob.
func TestStateGobVersion1(t *testing.T) {
	golden, err := os.ReadFile("testdata/state-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	var s State
	if err := json.Unmarshal(golden, &s); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&s); err != nil {
		t.Fatal(err)
	}
	var got State
	if err := gob.NewDecoder(&buf).Decode(&got); err != nil {
		t.Fatal(err)
	}
	// gob does not tell an empty slice from a nil one.
	if d := cmp.Diff(s, got, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("gob round trip (-want +got):\n%s", d)
	}
}
