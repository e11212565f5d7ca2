package sandbox

import (
	"context"
	"log/slog"
)

type loggerKey struct{}

// WithLoggerContext returns a context whose sandbox operations log to l.
func WithLoggerContext(ctx context.Context, l *slog.Logger) context.Context {
	return context.WithValue(ctx, loggerKey{}, l)
}

func slogFrom(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey{}).(*slog.Logger); ok && l != nil {
		return l
	}
	return slog.Default()
}
