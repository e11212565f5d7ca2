// Package ctxio makes a long copy stop when its context ends. io.Copy of a large file,
// an archive stream or a decompressor checks no context by itself; reading through
// [Reader] does, at every read, so Ctrl-C or a run's deadline stops a copy within one
// buffer wherever it happens (copy-in, copy-out, extraction).
package ctxio

import (
	"context"
	"io"
)

// maxRead bounds one read, so a reader asked for a huge buffer still checks the
// context often.
const maxRead = 1 << 20

// Reader returns r that fails with the context's cause once ctx ends.
func Reader(ctx context.Context, r io.Reader) io.Reader { return reader{ctx, r} }

type reader struct {
	ctx context.Context
	r   io.Reader
}

func (c reader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, context.Cause(c.ctx)
	}
	if len(p) > maxRead {
		p = p[:maxRead]
	}
	return c.r.Read(p)
}

var _ io.Reader = reader{}
