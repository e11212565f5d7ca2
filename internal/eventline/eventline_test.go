package eventline_test

import (
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/eventline"
)

// TestWriterLinesAndFlood: complete lines become events as they end (a CR before the
// newline dropped), and a flood without newlines gives one bounded event.
func TestWriterLinesAndFlood(t *testing.T) {
	var got []atesor.Event
	w := &eventline.Writer{Emit: func(e atesor.Event) { got = append(got, e) }, Node: "build", Phase: "make"}
	_, _ = w.Write([]byte("one\r\ntw"))
	_, _ = w.Write([]byte("o\n"))
	_, _ = w.Write([]byte(strings.Repeat("x", eventline.MaxLine+1)))
	if len(got) != 3 || got[0].Line != "one" || got[1].Line != "two" || got[0].Node != "build" || got[1].Phase != "make" || got[0].Kind != atesor.EventOutput {
		t.Fatalf("events %+v", got[:min(len(got), 2)])
	}
	if l := got[2].Line; len(l) != eventline.MaxLine+len(" [...]") || !strings.HasSuffix(l, " [...]") {
		t.Errorf("flood event of %d bytes", len(l))
	}
}
