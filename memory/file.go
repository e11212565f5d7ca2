package memory

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// FileVersion is the version of the example files this package writes.
const FileVersion = "2.0"

// fileNames maps each agent to its example file.
var fileNames = map[atesor.Agent]string{
	atesor.AgentScout:   "scout_examples.json",
	atesor.AgentFixer:   "fixer_examples.json",
	atesor.AgentBuilder: "builder_examples.json",
}

// FileName returns the example file name of an agent, for example fixer_examples.json.
func FileName(agent atesor.Agent) (string, error) {
	n, ok := fileNames[agent]
	if !ok {
		return "", fmt.Errorf("unknown agent %q: use scout, fixer or builder", agent)
	}
	return n, nil
}

// exampleDoc is a v2.0 example file as it is on disk. Top-level keys it does not know are
// kept and written back.
type exampleDoc struct {
	atesor.ExampleFile
	Extra map[string]json.RawMessage
}

var docKeys = map[string]bool{"version": true, "description": true, "general_guidelines": true, "examples": true}

// ParseExampleFile decodes a v2.0 example file. It fails on anything that is not a JSON
// object whose examples are example objects; top-level keys it does not know are ignored.
func ParseExampleFile(data []byte) (atesor.ExampleFile, error) {
	d, err := parseDoc(data)
	return d.ExampleFile, err
}

func parseDoc(data []byte) (exampleDoc, error) {
	var d exampleDoc
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return d, err
	}
	if all == nil {
		return d, errors.New("the file holds null, not an object")
	}
	if err := json.Unmarshal(data, &d.ExampleFile); err != nil {
		return exampleDoc{}, err
	}
	for k, v := range all {
		if !docKeys[k] {
			if d.Extra == nil {
				d.Extra = map[string]json.RawMessage{}
			}
			d.Extra[k] = v
		}
	}
	return d, nil
}

// marshal encodes the document indented, known keys first, then the kept keys in order.
func (d exampleDoc) marshal() ([]byte, error) {
	f := d.ExampleFile
	if f.Examples == nil {
		f.Examples = []atesor.Example{}
	}
	if f.GeneralGuidelines == nil {
		f.GeneralGuidelines = []string{}
	}
	b, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	if len(d.Extra) > 0 {
		keys := make([]string, 0, len(d.Extra))
		for k := range d.Extra {
			if !docKeys[k] {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		b = b[:len(b)-1]
		for _, k := range keys {
			kb, _ := json.Marshal(k)
			b = append(b, ',')
			b = append(b, kb...)
			b = append(b, ':')
			b = append(b, d.Extra[k]...)
		}
		b = append(b, '}')
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// BadFileError reports a file that exists but is not valid. Nothing overwrites such a file
// until a person repairs it.
type BadFileError struct {
	Path string
	Err  error
}

func (e *BadFileError) Error() string {
	return fmt.Sprintf("%s is not a valid file (%v): repair or remove it; Atesor will not overwrite it", e.Path, e.Err)
}

func (e *BadFileError) Unwrap() error { return e.Err }

// readDoc reads an example file. A missing file returns an error wrapping
// os.ErrNotExist; an invalid one a *BadFileError.
func readDoc(path string) (exampleDoc, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return exampleDoc{}, fmt.Errorf("read %s: %w", path, err)
	}
	d, err := parseDoc(data)
	if err != nil {
		return exampleDoc{}, &BadFileError{Path: path, Err: err}
	}
	return d, nil
}
