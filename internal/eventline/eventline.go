// Package eventline turns a command's live output into progress events, one per line,
// so every concern that runs commands in the sandbox reports their output the same way
// and with the same bound on memory.
package eventline

import (
	"io"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
)

// MaxLine bounds the part of an unfinished output line a Writer keeps.
const MaxLine = 64 << 10

// Writer emits one [atesor.EventOutput] per line written to it, with its Node and Phase.
// A trailing line without a newline is held until one arrives. It is not safe for
// concurrent use: one command's Stdout and Stderr may share a Writer because the
// sandbox's process runner serializes a command's live writes, but two commands that
// run at the same time may not.
type Writer struct {
	Emit  func(atesor.Event)
	Node  string
	Phase string
	buf   []byte
}

var _ io.Writer = (*Writer)(nil)

// Write emits the complete lines of b; it never fails.
func (w *Writer) Write(b []byte) (int, error) {
	w.buf = append(w.buf, b...)
	for {
		i := strings.IndexByte(string(w.buf), '\n')
		if i < 0 {
			break
		}
		w.emit(strings.TrimRight(string(w.buf[:i]), "\r"))
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > MaxLine {
		// A flood without newlines: one event with its start, the rest dropped, so that the
		// memory a command's output costs stays bounded.
		w.emit(string(w.buf[:MaxLine]) + " [...]")
		w.buf = w.buf[:0]
	}
	return len(b), nil
}

func (w *Writer) emit(line string) {
	if w.Emit != nil {
		w.Emit(atesor.Event{Kind: atesor.EventOutput, Node: w.Node, Phase: w.Phase, Line: line})
	}
}
