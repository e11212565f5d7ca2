package memory

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// CheckDuplicateKeys reads one JSON value from r and returns an error when an object in
// it holds the same key twice (encoding/json would silently keep the last one), or when
// the text is not valid JSON. The error names the path of the object and the key.
func CheckDuplicateKeys(r io.Reader) error {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	if err := checkValue(dec, "$", 0); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		if err == nil {
			return errors.New("invalid JSON: data after the first value")
		}
		return fmt.Errorf("invalid JSON: %w", err)
	}
	return nil
}

// maxDepth bounds the nesting of checked values, as encoding/json does.
const maxDepth = 10000

func checkValue(dec *json.Decoder, path string, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("invalid JSON at %s: nested deeper than %d levels", path, maxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("invalid JSON at %s: %w", path, err)
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	switch d {
	case '{':
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return fmt.Errorf("invalid JSON at %s: %w", path, err)
			}
			key, ok := kt.(string)
			if !ok {
				return fmt.Errorf("invalid JSON at %s: object key is not a string", path)
			}
			if seen[key] {
				return fmt.Errorf("duplicate key %q in the object at %s: remove one of them", key, path)
			}
			seen[key] = true
			if err := checkValue(dec, path+"."+quoteKey(key), depth+1); err != nil {
				return err
			}
		}
	case '[':
		for i := 0; dec.More(); i++ {
			if err := checkValue(dec, path+"["+strconv.Itoa(i)+"]", depth+1); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("invalid JSON at %s: unexpected %v", path, d)
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("invalid JSON at %s: %w", path, err)
	}
	return nil
}

func quoteKey(k string) string {
	if k != "" && !strings.ContainsAny(k, ".[]\" ") {
		return k
	}
	return strconv.Quote(k)
}
