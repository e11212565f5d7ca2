package atesor

import (
	"encoding/json"
	"math"
	"time"
)

// Durations in JSON: every duration Atesor writes as JSON (results, reports, states,
// recipe caches, command results) is a number of seconds, under a key that ends in
// _seconds, so people and other tools read it without knowing Go's nanoseconds. The Go
// fields stay time.Duration.

// fromSeconds converts JSON seconds back to a duration, to the nearest nanosecond.
func fromSeconds(s float64) time.Duration {
	return time.Duration(math.Round(s * float64(time.Second)))
}

// MarshalJSON writes Duration as duration_seconds.
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	return json.Marshal(struct {
		plain
		Duration float64 `json:"duration_seconds"`
	}{plain(r), r.Duration.Seconds()})
}

// UnmarshalJSON reads duration_seconds into Duration.
func (r *Result) UnmarshalJSON(b []byte) error {
	type plain Result
	v := struct {
		*plain
		Duration float64 `json:"duration_seconds"`
	}{plain: (*plain)(r)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	r.Duration = fromSeconds(v.Duration)
	return nil
}

// MarshalJSON writes Duration and SandboxTime as duration_seconds and sandbox_seconds.
func (s State) MarshalJSON() ([]byte, error) {
	type plain State
	return json.Marshal(struct {
		plain
		Duration    float64 `json:"duration_seconds,omitempty"`
		SandboxTime float64 `json:"sandbox_seconds,omitempty"`
	}{plain(s), s.Duration.Seconds(), s.SandboxTime.Seconds()})
}

// UnmarshalJSON reads duration_seconds and sandbox_seconds.
func (s *State) UnmarshalJSON(b []byte) error {
	type plain State
	v := struct {
		*plain
		Duration    float64 `json:"duration_seconds"`
		SandboxTime float64 `json:"sandbox_seconds"`
	}{plain: (*plain)(s)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	s.Duration, s.SandboxTime = fromSeconds(v.Duration), fromSeconds(v.SandboxTime)
	return nil
}

// MarshalJSON writes Duration as seconds.
func (t NodeTiming) MarshalJSON() ([]byte, error) {
	type plain NodeTiming
	return json.Marshal(struct {
		plain
		Duration float64 `json:"seconds"`
	}{plain(t), t.Duration.Seconds()})
}

// UnmarshalJSON reads seconds into Duration.
func (t *NodeTiming) UnmarshalJSON(b []byte) error {
	type plain NodeTiming
	v := struct {
		*plain
		Duration float64 `json:"seconds"`
	}{plain: (*plain)(t)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	t.Duration = fromSeconds(v.Duration)
	return nil
}

// MarshalJSON writes Duration as duration_seconds.
func (t TestResult) MarshalJSON() ([]byte, error) {
	type plain TestResult
	return json.Marshal(struct {
		plain
		Duration float64 `json:"duration_seconds"`
	}{plain(t), t.Duration.Seconds()})
}

// UnmarshalJSON reads duration_seconds into Duration.
func (t *TestResult) UnmarshalJSON(b []byte) error {
	type plain TestResult
	v := struct {
		*plain
		Duration float64 `json:"duration_seconds"`
	}{plain: (*plain)(t)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	t.Duration = fromSeconds(v.Duration)
	return nil
}

// MarshalJSON writes Duration as duration_seconds.
func (r CommandResult) MarshalJSON() ([]byte, error) {
	type plain CommandResult
	return json.Marshal(struct {
		plain
		Duration float64 `json:"duration_seconds"`
	}{plain(r), r.Duration.Seconds()})
}

// UnmarshalJSON reads duration_seconds into Duration.
func (r *CommandResult) UnmarshalJSON(b []byte) error {
	type plain CommandResult
	v := struct {
		*plain
		Duration float64 `json:"duration_seconds"`
	}{plain: (*plain)(r)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	r.Duration = fromSeconds(v.Duration)
	return nil
}

// MarshalJSON writes Timeout as timeout_seconds.
func (c Command) MarshalJSON() ([]byte, error) {
	type plain Command
	return json.Marshal(struct {
		plain
		Timeout float64 `json:"timeout_seconds,omitempty"`
	}{plain(c), c.Timeout.Seconds()})
}

// UnmarshalJSON reads timeout_seconds into Timeout.
func (c *Command) UnmarshalJSON(b []byte) error {
	type plain Command
	v := struct {
		*plain
		Timeout float64 `json:"timeout_seconds"`
	}{plain: (*plain)(c)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	c.Timeout = fromSeconds(v.Timeout)
	return nil
}

// MarshalJSON writes TestTimeout as test_timeout_seconds.
func (r Request) MarshalJSON() ([]byte, error) {
	type plain Request
	return json.Marshal(struct {
		plain
		TestTimeout float64 `json:"test_timeout_seconds,omitempty"`
	}{plain(r), r.TestTimeout.Seconds()})
}

// UnmarshalJSON reads test_timeout_seconds into TestTimeout.
func (r *Request) UnmarshalJSON(b []byte) error {
	type plain Request
	v := struct {
		*plain
		TestTimeout float64 `json:"test_timeout_seconds"`
	}{plain: (*plain)(r)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	r.TestTimeout = fromSeconds(v.TestTimeout)
	return nil
}
