package graph

import (
	"fmt"
	"io"
	"os"
	"sync"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/logfile"
)

// logStream writes one command's whole output to the build log while the command runs:
// the sandbox keeps only the head and tail of a long output in the result, the build log
// on disk gets every byte. Writes never fail the command.
type logStream struct {
	mu sync.Mutex
	f  *os.File
}

var _ io.Writer = (*logStream)(nil)

// startLog opens the build log and writes the command line; a log that cannot be opened
// is reported and skipped.
func (r *run) startLog(line string) *logStream {
	f, err := logfile.OpenAppend(r.outPath("_build.log"))
	if err != nil {
		r.log.Warn("build log", "err", err)
		return &logStream{}
	}
	fmt.Fprintf(f, "$ %s\n", line)
	return &logStream{f: f}
}

func (l *logStream) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		_, _ = l.f.Write(p)
	}
	return len(p), nil
}

// end writes the command's exit and closes the log.
func (l *logStream) end(res atesor.CommandResult) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return
	}
	fmt.Fprintf(l.f, "\n[exit %d, %s]\n\n", res.ExitCode, res.Duration.Round(1e6))
	l.f.Close()
	l.f = nil
}

// teeTo returns a lineWriter that also streams the raw output to the log.
func (w *lineWriter) teeTo(l *logStream) io.Writer {
	return io.MultiWriter(l, w)
}
