package crates

import (
	"fmt"

	"github.com/pelletier/go-toml/v2"
)

// Bounds on one Cargo.toml. The largest real manifests (workspace roots of big
// projects) are some tens of kilobytes and nest four or five levels; the bounds leave
// room for those and keep a hostile file from holding the heap or the stack.
const (
	// MaxManifestSize is the largest Cargo.toml read.
	MaxManifestSize = 4 << 20
	// maxNesting bounds how deep arrays and inline tables nest.
	maxNesting = 64
	// maxKeys bounds the key/value pairs of one manifest. The TOML decoder looks each
	// new key up among all keys seen before (quadratic time: 40000 keys take seconds),
	// while the largest real manifests have a few thousand (web-sys's features).
	maxKeys = 8000
)

// decodeTOML parses one manifest into generic tables, after checking its size and
// nesting so the TOML parser's recursion stays bounded.
func decodeTOML(name string, data []byte) (map[string]any, error) {
	if len(data) > MaxManifestSize {
		return nil, fmt.Errorf("crates: %s is %d bytes, more than the %d a manifest may have", name, len(data), MaxManifestSize)
	}
	d, keys := shape(data)
	if d > maxNesting {
		return nil, fmt.Errorf("crates: %s nests arrays or tables %d deep, more than the %d allowed", name, d, maxNesting)
	}
	if keys > maxKeys {
		return nil, fmt.Errorf("crates: %s has %d keys, more than the %d allowed", name, keys, maxKeys)
	}
	var m map[string]any
	if err := toml.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("crates: %s is not valid TOML: %w", name, err)
	}
	return m, nil
}

// shape returns the deepest nesting of '[' and '{' and the number of '=' outside
// strings and comments (one per key/value pair). It over-counts rather than
// under-counts (a table header [[bin]] counts two), which only matters for inputs far
// past any real manifest.
func shape(data []byte) (deepest, keys int) {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '#':
			for i < len(data) && data[i] != '\n' {
				i++
			}
		case '"', '\'':
			i = skipString(data, i)
		case '=':
			keys++
		case '[', '{':
			depth++
			deepest = max(deepest, depth)
		case ']', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return deepest, keys
}

// skipString returns the index of the last byte of the string that starts at i
// (basic or literal, one-line or multi-line).
func skipString(data []byte, i int) int {
	q := data[i]
	multi := i+2 < len(data) && data[i+1] == q && data[i+2] == q
	if multi {
		for j := i + 3; j+2 < len(data); j++ {
			if q == '"' && data[j] == '\\' {
				j++
				continue
			}
			if data[j] == q && data[j+1] == q && data[j+2] == q {
				return j + 2
			}
		}
		return len(data)
	}
	for j := i + 1; j < len(data); j++ {
		switch {
		case q == '"' && data[j] == '\\':
			j++
		case data[j] == q, data[j] == '\n':
			return j
		}
	}
	return len(data)
}

// Accessors of decoded tables: a value of another type than expected reads as absent,
// and the manifest's own checks say what is wrong where it matters.

func table(m map[string]any, key string) map[string]any {
	t, _ := m[key].(map[string]any)
	return t
}

func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

func boolean(m map[string]any, key string, def bool) bool {
	if b, ok := m[key].(bool); ok {
		return b
	}
	return def
}

func stringList(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// inherited reports whether a field is { workspace = true }.
func inherited(v any) bool {
	t, ok := v.(map[string]any)
	return ok && boolean(t, "workspace", false)
}
