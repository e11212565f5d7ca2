package proc

import (
	"bytes"
	"strings"
	"testing"
)

func TestBoundedBuffer(t *testing.T) {
	for _, tc := range []struct {
		name   string
		head   int
		tail   int
		writes []string
		want   string
	}{
		{"small", 4, 4, []string{"ab", "c"}, "abc"},
		{"exactly head", 4, 4, []string{"abcd"}, "abcd"},
		{"head and tail, nothing dropped", 4, 4, []string{"abcdef"}, "abcdef"},
		{"middle dropped", 2, 3, []string{"ab", "cdefg", "hij"}, "ab" + marker(5, 10, 2, 3) + "hij"},
		{"ring wraps in small writes", 1, 3, []string{"a", "b", "c", "d", "e", "f"}, "a" + marker(2, 6, 1, 3) + "def"},
		{"one huge write", 2, 2, []string{strings.Repeat("x", 100) + "yz"}, "xx" + marker(98, 102, 2, 2) + "yz"},
	} {
		b := NewBuffer(tc.head, tc.tail)
		for _, w := range tc.writes {
			if n, err := b.Write([]byte(w)); err != nil || n != len(w) {
				t.Fatalf("%s: Write = %d, %v", tc.name, n, err)
			}
		}
		if got := b.String(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func marker(omitted, total, head, tail int) string {
	b := NewBuffer(head, tail)
	b.total, b.head, b.tail = int64(total), make([]byte, head), make([]byte, tail)
	_ = omitted
	s := b.String()
	return s[head : len(s)-tail]
}

func BenchmarkBoundedBuffer(b *testing.B) {
	buf := NewBuffer(OutputHead, OutputTail)
	chunk := bytes.Repeat([]byte("0123456789abcdef"), 2048)
	b.SetBytes(int64(len(chunk)))
	for i := 0; i < b.N; i++ {
		_, _ = buf.Write(chunk)
	}
}

func FuzzBoundedBuffer(f *testing.F) {
	f.Add([]byte("hello world"), 3, 4)
	f.Fuzz(func(t *testing.T, data []byte, head, tail int) {
		head, tail = head&63, tail&63
		b := NewBuffer(head, tail)
		for i := 0; i < len(data); i += 7 {
			_, _ = b.Write(data[i:min(i+7, len(data))])
		}
		s := b.String()
		if len(data) <= head+tail {
			if s != string(data) {
				t.Fatalf("%q kept as %q", data, s)
			}
			return
		}
		if !strings.HasPrefix(s, string(data[:head])) || !strings.HasSuffix(s, string(data[len(data)-tail:])) {
			t.Fatalf("%q kept as %q", data, s)
		}
	})
}
