package graph

import (
	"fmt"
	"io"
	"os"
	"sync"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/logfile"
)

// logStream writes one command's output to the build log while the command runs: the
// sandbox keeps only the head and tail of a long output in the result, the build log on
// disk gets every byte up to a bound. The output is the package's, so untrusted: a
// configure that answers its own prompt forever on a closed stdin wrote 133 MB in seven
// minutes (a held-back package's "select platform:" loop), and the command timeout
// alone would have let it fill the host's disk with many times that. Writes never fail
// the command.
type logStream struct {
	mu sync.Mutex
	f  *os.File
	// limit is how many more bytes of the output the log takes; dropped counts the rest.
	limit, dropped int64
}

// Bounds of the build log: one command's output, and the whole log of a port.
const (
	maxCommandLog = 64 << 20
	maxBuildLog   = 512 << 20
)

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
	limit := int64(maxCommandLog)
	if st, err := f.Stat(); err == nil {
		limit = max(0, min(limit, maxBuildLog-st.Size()))
	}
	return &logStream{f: f, limit: limit}
}

func (l *logStream) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return len(p), nil
	}
	keep := min(int64(len(p)), l.limit)
	if keep > 0 {
		_, _ = l.f.Write(p[:keep])
		l.limit -= keep
	}
	l.dropped += int64(len(p)) - keep
	return len(p), nil
}

// end writes the command's exit and closes the log.
func (l *logStream) end(res atesor.CommandResult) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return
	}
	if l.dropped > 0 {
		fmt.Fprintf(l.f, "\n[atesor: %d more bytes of this command's output are not in the log: it keeps %d MiB of a command and %d MiB in all]",
			l.dropped, maxCommandLog>>20, maxBuildLog>>20)
	}
	fmt.Fprintf(l.f, "\n[exit %d, %s]\n\n", res.ExitCode, res.Duration.Round(1e6))
	l.f.Close()
	l.f = nil
}

// teeTo returns a lineWriter that also streams the raw output to the log.
func (w *lineWriter) teeTo(l *logStream) io.Writer {
	return io.MultiWriter(l, w)
}
