package decompress_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"testing"

	"github.com/ulikunitz/xz"
	"github.com/ulikunitz/xz/lzma"

	"github.com/eclipse-atesor/atesor-go/internal/decompress"
)

func TestReader(t *testing.T) {
	const text = "the same bytes in every format\n"
	compress := func(mk func(io.Writer) (io.WriteCloser, error)) []byte {
		var b bytes.Buffer
		w, err := mk(&b)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(w, text); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	// bzip2 has no writer in the standard library: a known stream of "hi\n".
	bz := []byte("\x42\x5a\x68\x39\x31\x41\x59\x26\x53\x59\x1d\x5e\x59\xd5\x00\x00\x00\xc1\x00\x00\x10\x00\x60\x20\x00\x21\x98\x19\x84\x61\x77\x24\x53\x85\x09\x01\xd5\xe5\x9d\x50")
	for _, tt := range []struct {
		ext  string
		in   []byte
		want string
	}{
		{"", []byte(text), text},
		{".tar", []byte(text), text},
		{".gz", compress(func(w io.Writer) (io.WriteCloser, error) { return gzip.NewWriter(w), nil }), text},
		{".xz", compress(func(w io.Writer) (io.WriteCloser, error) { return xz.NewWriter(w) }), text},
		{".lzma", compress(func(w io.Writer) (io.WriteCloser, error) { return lzma.NewWriter(w) }), text},
		{".bz2", bz, "hi\n"},
	} {
		r, err := decompress.Reader(tt.ext, bytes.NewReader(tt.in))
		if err != nil {
			t.Fatalf("%q: %v", tt.ext, err)
		}
		got, err := io.ReadAll(r)
		r.Close()
		if err != nil || string(got) != tt.want {
			t.Errorf("%q: got %q, %v; want %q", tt.ext, got, err, tt.want)
		}
	}
	if _, err := decompress.Reader(".zst", bytes.NewReader(nil)); !errors.Is(err, decompress.ErrUnsupported) {
		t.Errorf(".zst: %v, want ErrUnsupported", err)
	}
	if _, err := decompress.Reader(".gz", bytes.NewReader([]byte("not gzip"))); err == nil {
		t.Error("a corrupt gzip stream opened without error")
	}
}
