package atesor

import (
	"bytes"
	"encoding/json"
	"math"
	"time"
)

// Seconds is a duration as it appears in JSON: a number of seconds, under a key that
// ends in _seconds, so people and other tools read it without knowing Go's nanoseconds.
// Every duration Atesor writes as JSON (results, reports, states, recipe caches, command
// results, events) goes through it; the Go fields of the domain types stay
// time.Duration and their MarshalJSON methods convert.
type Seconds time.Duration

// MarshalJSON writes the duration as a number of seconds.
func (s Seconds) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(s).Seconds()) }

// UnmarshalJSON reads a number of seconds, to the nearest nanosecond; null leaves the
// value as it is.
func (s *Seconds) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*s = Seconds(math.Round(f * float64(time.Second)))
	return nil
}

// Duration returns s as a time.Duration.
func (s Seconds) Duration() time.Duration { return time.Duration(s) }

// MarshalJSON writes Duration as duration_seconds.
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	return json.Marshal(struct {
		plain
		Duration Seconds `json:"duration_seconds"`
	}{plain(r), Seconds(r.Duration)})
}

// UnmarshalJSON reads duration_seconds into Duration.
func (r *Result) UnmarshalJSON(b []byte) error {
	type plain Result
	v := struct {
		*plain
		Duration Seconds `json:"duration_seconds"`
	}{plain: (*plain)(r)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	r.Duration = v.Duration.Duration()
	return nil
}

// MarshalJSON writes Duration and SandboxTime as duration_seconds and sandbox_seconds.
func (s State) MarshalJSON() ([]byte, error) {
	type plain State
	return json.Marshal(struct {
		plain
		Duration    Seconds `json:"duration_seconds,omitempty"`
		SandboxTime Seconds `json:"sandbox_seconds,omitempty"`
	}{plain(s), Seconds(s.Duration), Seconds(s.SandboxTime)})
}

// UnmarshalJSON reads duration_seconds and sandbox_seconds.
func (s *State) UnmarshalJSON(b []byte) error {
	type plain State
	v := struct {
		*plain
		Duration    Seconds `json:"duration_seconds"`
		SandboxTime Seconds `json:"sandbox_seconds"`
	}{plain: (*plain)(s)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	s.Duration, s.SandboxTime = v.Duration.Duration(), v.SandboxTime.Duration()
	return nil
}

// MarshalJSON writes Duration as seconds.
func (t NodeTiming) MarshalJSON() ([]byte, error) {
	type plain NodeTiming
	return json.Marshal(struct {
		plain
		Duration Seconds `json:"seconds"`
	}{plain(t), Seconds(t.Duration)})
}

// UnmarshalJSON reads seconds into Duration.
func (t *NodeTiming) UnmarshalJSON(b []byte) error {
	type plain NodeTiming
	v := struct {
		*plain
		Duration Seconds `json:"seconds"`
	}{plain: (*plain)(t)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	t.Duration = v.Duration.Duration()
	return nil
}

// MarshalJSON writes Duration as duration_seconds.
func (t TestResult) MarshalJSON() ([]byte, error) {
	type plain TestResult
	return json.Marshal(struct {
		plain
		Duration Seconds `json:"duration_seconds"`
	}{plain(t), Seconds(t.Duration)})
}

// UnmarshalJSON reads duration_seconds into Duration.
func (t *TestResult) UnmarshalJSON(b []byte) error {
	type plain TestResult
	v := struct {
		*plain
		Duration Seconds `json:"duration_seconds"`
	}{plain: (*plain)(t)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	t.Duration = v.Duration.Duration()
	return nil
}

// MarshalJSON writes Duration as duration_seconds.
func (r CommandResult) MarshalJSON() ([]byte, error) {
	type plain CommandResult
	return json.Marshal(struct {
		plain
		Duration Seconds `json:"duration_seconds"`
	}{plain(r), Seconds(r.Duration)})
}

// UnmarshalJSON reads duration_seconds into Duration.
func (r *CommandResult) UnmarshalJSON(b []byte) error {
	type plain CommandResult
	v := struct {
		*plain
		Duration Seconds `json:"duration_seconds"`
	}{plain: (*plain)(r)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	r.Duration = v.Duration.Duration()
	return nil
}

// MarshalJSON writes Timeout as timeout_seconds.
func (c Command) MarshalJSON() ([]byte, error) {
	type plain Command
	return json.Marshal(struct {
		plain
		Timeout Seconds `json:"timeout_seconds,omitempty"`
	}{plain(c), Seconds(c.Timeout)})
}

// UnmarshalJSON reads timeout_seconds into Timeout.
func (c *Command) UnmarshalJSON(b []byte) error {
	type plain Command
	v := struct {
		*plain
		Timeout Seconds `json:"timeout_seconds"`
	}{plain: (*plain)(c)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	c.Timeout = v.Timeout.Duration()
	return nil
}

// MarshalJSON writes TestTimeout as test_timeout_seconds.
func (r Request) MarshalJSON() ([]byte, error) {
	type plain Request
	return json.Marshal(struct {
		plain
		TestTimeout Seconds `json:"test_timeout_seconds,omitempty"`
	}{plain(r), Seconds(r.TestTimeout)})
}

// UnmarshalJSON reads test_timeout_seconds into TestTimeout.
func (r *Request) UnmarshalJSON(b []byte) error {
	type plain Request
	v := struct {
		*plain
		TestTimeout Seconds `json:"test_timeout_seconds"`
	}{plain: (*plain)(r)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	r.TestTimeout = v.TestTimeout.Duration()
	return nil
}

// MarshalJSON writes Elapsed as elapsed_seconds.
func (e Event) MarshalJSON() ([]byte, error) {
	type plain Event
	return json.Marshal(struct {
		plain
		Elapsed Seconds `json:"elapsed_seconds"`
	}{plain(e), Seconds(e.Elapsed)})
}

// UnmarshalJSON reads elapsed_seconds into Elapsed.
func (e *Event) UnmarshalJSON(b []byte) error {
	type plain Event
	v := struct {
		*plain
		Elapsed Seconds `json:"elapsed_seconds"`
	}{plain: (*plain)(e)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	e.Elapsed = v.Elapsed.Duration()
	return nil
}

// MarshalJSON writes Median, Min, Max and Durations as seconds.
func (v Variant) MarshalJSON() ([]byte, error) {
	type plain Variant
	var ds []Seconds
	for _, d := range v.Durations {
		ds = append(ds, Seconds(d))
	}
	return json.Marshal(struct {
		plain
		Median    Seconds   `json:"median_seconds"`
		Min       Seconds   `json:"min_seconds"`
		Max       Seconds   `json:"max_seconds"`
		Durations []Seconds `json:"durations_seconds,omitempty"`
	}{plain(v), Seconds(v.Median), Seconds(v.Min), Seconds(v.Max), ds})
}

// UnmarshalJSON reads the durations in seconds.
func (v *Variant) UnmarshalJSON(b []byte) error {
	type plain Variant
	w := struct {
		*plain
		Median    Seconds   `json:"median_seconds"`
		Min       Seconds   `json:"min_seconds"`
		Max       Seconds   `json:"max_seconds"`
		Durations []Seconds `json:"durations_seconds"`
	}{plain: (*plain)(v)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	v.Median, v.Min, v.Max = w.Median.Duration(), w.Min.Duration(), w.Max.Duration()
	v.Durations = nil
	for _, s := range w.Durations {
		v.Durations = append(v.Durations, s.Duration())
	}
	return nil
}
