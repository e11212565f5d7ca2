package proc

import (
	"fmt"
	"sync"
)

// Output kept in memory per stream of a command: the first OutputHead bytes and the last
// OutputTail bytes. A command that prints more loses the middle from its
// [atesor.CommandResult] (a marker says how much); the live writers of the command (the
// build log) still get every byte.
const (
	OutputHead = 1 << 20
	OutputTail = 3 << 20
)

// Buffer keeps the first head and the last tail bytes written to it, and counts
// the rest. Safe for concurrent use (the stdout and stderr copiers share the combined
// buffer).
type Buffer struct {
	mu      sync.Mutex
	head    []byte
	tail    []byte // ring buffer of capacity tailCap once full
	start   int    // index of the oldest byte in tail when full
	headCap int
	tailCap int
	total   int64
}

// NewBuffer returns a buffer that keeps the first head and the last tail bytes.
func NewBuffer(head, tail int) *Buffer {
	return &Buffer{headCap: head, tailCap: tail}
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	b.total += int64(n)
	if room := b.headCap - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 || b.tailCap == 0 {
		return n, nil
	}
	if len(p) >= b.tailCap {
		// Only the last tailCap bytes of p survive.
		b.tail = append(b.tail[:0], p[len(p)-b.tailCap:]...)
		b.start = 0
		return n, nil
	}
	if room := b.tailCap - len(b.tail); room > 0 {
		k := min(room, len(p))
		b.tail = append(b.tail, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 {
		// Full ring: overwrite from the oldest byte on.
		k := copy(b.tail[b.start:], p)
		p = p[k:]
		b.start = (b.start + k) % b.tailCap
	}
	return n, nil
}

// omitted returns how many bytes were dropped from the middle.
func (b *Buffer) omitted() int64 {
	return b.total - int64(len(b.head)) - int64(len(b.tail))
}

// String returns the head, a marker line when bytes were dropped, and the tail.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.total <= int64(b.headCap) {
		return string(b.head)
	}
	marker := ""
	if n := b.omitted(); n > 0 {
		marker = fmt.Sprintf("\n[atesor] %d bytes of output omitted here (%d in all; the first %d and last %d are kept, the build log has everything)\n",
			n, b.total, len(b.head), len(b.tail))
	}
	buf := make([]byte, 0, len(b.head)+len(marker)+len(b.tail))
	buf = append(buf, b.head...)
	buf = append(buf, marker...)
	buf = append(buf, b.tail[b.start:]...)
	buf = append(buf, b.tail[:b.start]...)
	return string(buf)
}
