package atesor

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// secondsField is a time.Duration field written as a number of seconds under key.
type secondsField struct {
	key       string
	d         *time.Duration
	omitEmpty bool
}

func secs(key string, d *time.Duration) secondsField { return secondsField{key: key, d: d} }

func secsOmitEmpty(key string, d *time.Duration) secondsField {
	return secondsField{key: key, d: d, omitEmpty: true}
}

// marshalSeconds writes plain (a value of a method-less copy of the type, so this does
// not recurse) as a JSON object and appends the duration fields as seconds, in order.
func marshalSeconds(plain any, fields ...secondsField) ([]byte, error) {
	b, err := json.Marshal(plain)
	if err != nil {
		return nil, err
	}
	if len(b) < 2 || b[len(b)-1] != '}' {
		return nil, fmt.Errorf("atesor: %T does not marshal to a JSON object", plain)
	}
	var buf bytes.Buffer
	buf.Write(b[:len(b)-1])
	empty := len(bytes.TrimSpace(b[1:len(b)-1])) == 0
	for _, f := range fields {
		if f.omitEmpty && *f.d == 0 {
			continue
		}
		if !empty {
			buf.WriteByte(',')
		}
		empty = false
		v, err := json.Marshal(f.d.Seconds())
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&buf, "%q:%s", f.key, v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// unmarshalSeconds reads b into plain (a pointer to a method-less copy of the type) and
// the duration fields from their seconds; a missing key is zero.
func unmarshalSeconds(b []byte, plain any, fields ...secondsField) error {
	if err := json.Unmarshal(b, plain); err != nil {
		return err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	for _, f := range fields {
		var s float64
		if v, ok := raw[f.key]; ok {
			if err := json.Unmarshal(v, &s); err != nil {
				return fmt.Errorf("atesor: %s: %w", f.key, err)
			}
		}
		*f.d = fromSeconds(s)
	}
	return nil
}

// MarshalJSON writes Duration as duration_seconds.
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	return marshalSeconds(plain(r), secs("duration_seconds", &r.Duration))
}

// UnmarshalJSON reads duration_seconds into Duration.
func (r *Result) UnmarshalJSON(b []byte) error {
	type plain Result
	return unmarshalSeconds(b, (*plain)(r), secs("duration_seconds", &r.Duration))
}

// MarshalJSON writes Duration and SandboxTime as duration_seconds and sandbox_seconds.
func (s State) MarshalJSON() ([]byte, error) {
	type plain State
	return marshalSeconds(plain(s), secsOmitEmpty("duration_seconds", &s.Duration), secsOmitEmpty("sandbox_seconds", &s.SandboxTime))
}

// UnmarshalJSON reads duration_seconds and sandbox_seconds.
func (s *State) UnmarshalJSON(b []byte) error {
	type plain State
	return unmarshalSeconds(b, (*plain)(s), secs("duration_seconds", &s.Duration), secs("sandbox_seconds", &s.SandboxTime))
}

// MarshalJSON writes Duration as seconds.
func (t NodeTiming) MarshalJSON() ([]byte, error) {
	type plain NodeTiming
	return marshalSeconds(plain(t), secs("seconds", &t.Duration))
}

// UnmarshalJSON reads seconds into Duration.
func (t *NodeTiming) UnmarshalJSON(b []byte) error {
	type plain NodeTiming
	return unmarshalSeconds(b, (*plain)(t), secs("seconds", &t.Duration))
}

// MarshalJSON writes Duration as duration_seconds.
func (t TestResult) MarshalJSON() ([]byte, error) {
	type plain TestResult
	return marshalSeconds(plain(t), secs("duration_seconds", &t.Duration))
}

// UnmarshalJSON reads duration_seconds into Duration.
func (t *TestResult) UnmarshalJSON(b []byte) error {
	type plain TestResult
	return unmarshalSeconds(b, (*plain)(t), secs("duration_seconds", &t.Duration))
}

// MarshalJSON writes Duration as duration_seconds.
func (r CommandResult) MarshalJSON() ([]byte, error) {
	type plain CommandResult
	return marshalSeconds(plain(r), secs("duration_seconds", &r.Duration))
}

// UnmarshalJSON reads duration_seconds into Duration.
func (r *CommandResult) UnmarshalJSON(b []byte) error {
	type plain CommandResult
	return unmarshalSeconds(b, (*plain)(r), secs("duration_seconds", &r.Duration))
}

// MarshalJSON writes Timeout as timeout_seconds.
func (c Command) MarshalJSON() ([]byte, error) {
	type plain Command
	return marshalSeconds(plain(c), secsOmitEmpty("timeout_seconds", &c.Timeout))
}

// UnmarshalJSON reads timeout_seconds into Timeout.
func (c *Command) UnmarshalJSON(b []byte) error {
	type plain Command
	return unmarshalSeconds(b, (*plain)(c), secs("timeout_seconds", &c.Timeout))
}

// MarshalJSON writes TestTimeout as test_timeout_seconds.
func (r Request) MarshalJSON() ([]byte, error) {
	type plain Request
	return marshalSeconds(plain(r), secsOmitEmpty("test_timeout_seconds", &r.TestTimeout))
}

// UnmarshalJSON reads test_timeout_seconds into TestTimeout.
func (r *Request) UnmarshalJSON(b []byte) error {
	type plain Request
	return unmarshalSeconds(b, (*plain)(r), secs("test_timeout_seconds", &r.TestTimeout))
}
