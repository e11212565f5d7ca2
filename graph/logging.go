package graph

import (
	"context"
	"errors"
	"log/slog"
)

// Logging: a run writes its structured log to agent_<repo>.log in the output directory
// (every level, Debug included) and to Config.Logger, with the same records. Levels:
//
//   - Debug: detail a person rarely needs (scripted decisions, skipped steps).
//   - Info: progress: a node started or finished (with its duration), the supervisor's
//     route, a fallback or cache hit, a command that ran.
//   - Warn: something went wrong and the run went on: a model call that gave no valid
//     answer, a rejected answer, an unknown model price, a file that could not be
//     written.
//   - Error: a node failed (the machinery: sandbox, source, disk), so the run ends with
//     failure class setup or infra.
//
// Every record carries the attribute repo (the package name); node records carry node.

// fanout is a slog.Handler that sends each record to several handlers.
type fanout []slog.Handler

var _ slog.Handler = fanout(nil)

func (f fanout) Enabled(ctx context.Context, l slog.Level) bool {
	for _, h := range f {
		if h.Enabled(ctx, l) {
			return true
		}
	}
	return false
}

func (f fanout) Handle(ctx context.Context, r slog.Record) error {
	var errs []error
	for _, h := range f {
		if h.Enabled(ctx, r.Level) {
			if err := h.Handle(ctx, r.Clone()); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

func (f fanout) WithAttrs(attrs []slog.Attr) slog.Handler {
	out := make(fanout, len(f))
	for i, h := range f {
		out[i] = h.WithAttrs(attrs)
	}
	return out
}

func (f fanout) WithGroup(name string) slog.Handler {
	out := make(fanout, len(f))
	for i, h := range f {
		out[i] = h.WithGroup(name)
	}
	return out
}
