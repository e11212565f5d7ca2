package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/escape"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// tailLines is how many lines of build output the progress display keeps.
const tailLines = 6

// maxLineWidth cuts long output lines on the live display.
const maxLineWidth = 110

// progress shows a run's progress on stderr. On a terminal it keeps a live block (node,
// phase, elapsed time, the last lines of output) that is redrawn in place, with notable
// events printed above it; otherwise it prints plain lines, and output lines only when
// verbose (the last ones are printed when a node fails).
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	live    bool
	verbose bool

	node, phase, command string
	elapsed              time.Duration
	tail                 []string
	drawn                int // lines of the live block on screen

	// now is the clock; elapsedAt is when elapsed was last reported by an event, so the
	// live block's clock keeps running while a command prints nothing.
	now       func() time.Time
	elapsedAt time.Time
	stopOnce  sync.Once
	stop      chan struct{} // closed by Done; stops the ticker of the live block
	stopped   chan struct{} // closed when the ticker has returned
}

// tickInterval is how often the live block redraws its clock.
const tickInterval = time.Second

func newProgress(w io.Writer, live, verbose bool) *progress {
	p := &progress{w: w, live: live, verbose: verbose, now: time.Now,
		stop: make(chan struct{}), stopped: make(chan struct{})}
	if !live {
		close(p.stopped)
		return p
	}
	go func() {
		defer close(p.stopped)
		t := time.NewTicker(tickInterval)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.tick()
			}
		}
	}()
	return p
}

// setElapsed records an elapsed time reported by the pipeline or the provisioning.
func (p *progress) setElapsed(d time.Duration) {
	p.elapsed, p.elapsedAt = d, p.now()
}

// tick redraws the live block with the clock advanced to now.
func (p *progress) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn == 0 {
		return // nothing on screen (not started, or done)
	}
	p.redraw()
}

// shownElapsed is the elapsed time of the live block: the last reported time plus the
// time since it was reported.
func (p *progress) shownElapsed() time.Duration {
	if p.elapsedAt.IsZero() {
		return p.elapsed
	}
	return p.elapsed + p.now().Sub(p.elapsedAt)
}

// Event handles a pipeline event.
func (p *progress) Event(e atesor.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e.Elapsed > 0 && e.Elapsed >= p.elapsed {
		p.setElapsed(e.Elapsed)
	}
	switch e.Kind {
	case atesor.EventNodeStarted:
		p.node, p.phase, p.command = e.Node, "", ""
		p.tail = p.tail[:0]
		if !p.live {
			p.printf("%s %s", stamp(e.Elapsed), e.Node)
		}
	case atesor.EventNodeFinished:
		if e.Err != "" {
			p.printf("%s %s failed: %s", stamp(e.Elapsed), e.Node, e.Err)
			if !p.verbose || p.live {
				for _, l := range p.tail {
					p.printf("    | %s", l)
				}
			}
		}
	case atesor.EventPhase:
		p.phase = e.Phase
		p.printf("%s %s: %s", stamp(e.Elapsed), orDash(e.Node, p.node), e.Phase)
	case atesor.EventCommand:
		p.command = e.Line
		if !p.live || p.verbose {
			p.printf("%s   $ %s", stamp(e.Elapsed), e.Line)
		}
	case atesor.EventOutput:
		p.addTail(e.Line)
		if !p.live && p.verbose {
			p.printf("    %s", e.Line)
		}
	case atesor.EventInfo:
		p.printf("%s %s", stamp(e.Elapsed), e.Line)
	case atesor.EventScriptedFix:
		p.printf("%s %s: scripted fix (%s): %s", stamp(e.Elapsed), orDash(e.Node, p.node), e.Rule, e.Line)
	case atesor.EventFallback:
		p.printf("%s %s: fallback: %s", stamp(e.Elapsed), orDash(e.Node, p.node), e.Line)
	case atesor.EventAnswerRejected:
		if p.verbose {
			p.printf("%s %s: %s's answer from %s rejected (%s): %s", stamp(e.Elapsed), orDash(e.Node, p.node), e.Label, e.Model, e.Rule, firstLineOf(e.Err))
		}
	case atesor.EventWarning:
		p.printf("%s warning: %s", stamp(e.Elapsed), e.Line)
	}
	p.redraw()
}

// Provision handles a sandbox provisioning step.
func (p *progress) Provision(pr sandbox.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.node, p.phase = "sandbox", pr.Stage
	p.setElapsed(pr.Elapsed)
	bootstrap := pr.Stage == "bootstrap" || pr.Stage == "accel-bootstrap"
	switch {
	case p.verbose:
		p.printf("%s sandbox %s: %s", stamp(pr.Elapsed), pr.Stage, pr.Message)
	case quietStages[pr.Stage]:
		// Checks that pass in a moment; a failure is reported as the run's error.
	case bootstrap && !mmdebstrapStep(pr.Message):
		// mmdebstrap's apt output (hundreds of lines) scrolls in the live block; its
		// step lines below say where the bootstrap is.
		p.addTail(pr.Message)
	default:
		p.printf("%s sandbox %s: %s", stamp(pr.Elapsed), pr.Stage, pr.Message)
	}
	p.redraw()
}

// quietStages are the provisioning stages shown only with --verbose.
var quietStages = map[string]bool{"check": true, "binfmt": true}

// mmdebstrapStep reports whether a bootstrap line is one of mmdebstrap's step lines
// (I:, W:, E:) or its command line, which are printed; the rest is apt's detail.
func mmdebstrapStep(line string) bool {
	for _, p := range []string{"I: ", "W: ", "E: ", "mmdebstrap "} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// Done stops the clock and clears the live block. It may be called more than once.
func (p *progress) Done() {
	p.stopOnce.Do(func() { close(p.stop) })
	<-p.stopped
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}

func (p *progress) addTail(line string) {
	line = strings.TrimRight(line, "\r\n")
	if strings.TrimSpace(line) == "" {
		return
	}
	if len(p.tail) == tailLines {
		copy(p.tail, p.tail[1:])
		p.tail = p.tail[:tailLines-1]
	}
	p.tail = append(p.tail, line)
}

// printf prints a permanent line (above the live block on a terminal). The line holds
// names, commands, output and messages from the build: it is escaped to one line, so
// nothing in it reaches the terminal as a control sequence or forges a line of its own.
func (p *progress) printf(format string, args ...any) {
	p.clear()
	fmt.Fprint(p.w, escape.Line(fmt.Sprintf(format, args...))+"\n")
}

// clear removes the live block from the screen.
func (p *progress) clear() {
	if !p.live || p.drawn == 0 {
		return
	}
	fmt.Fprintf(p.w, "\x1b[%dA\x1b[J", p.drawn)
	p.drawn = 0
}

// redraw draws the live block: a status line and the output tail.
func (p *progress) redraw() {
	if !p.live {
		return
	}
	p.clear()
	var b strings.Builder
	status := fmt.Sprintf("%s %s", stamp(p.shownElapsed()), orDash(p.node, "starting"))
	if p.phase != "" {
		status += " · " + p.phase
	}
	if p.command != "" {
		status += " · $ " + p.command
	}
	lines := append([]string{status}, p.tail...)
	for i, l := range lines {
		l = cut(l, maxLineWidth)
		if i > 0 {
			l = "  " + l
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	fmt.Fprint(p.w, b.String())
	p.drawn = len(lines)
}

// stamp formats an elapsed time as [mm:ss].
func stamp(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	return fmt.Sprintf("[%02d:%02d]", s/60, s%60)
}

func orDash(s, alt string) string {
	if s != "" {
		return s
	}
	return alt
}

// cut shortens s to n runes, escaping control characters so the block keeps its shape
// and the terminal sees no sequence from the build.
func cut(s string, n int) string {
	s = escape.Line(strings.ReplaceAll(s, "\t", " "))
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// firstLineOf is the first line of a multi-line text (a critique), for one-line output.
func firstLineOf(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
