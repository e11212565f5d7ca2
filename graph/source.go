package graph

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/gotool"
	"github.com/eclipse-atesor/atesor-go/internal/procowner"
	"github.com/eclipse-atesor/atesor-go/source"
)

// reclaimTempDirs removes the temporary directories of runs whose process is gone (it
// was killed or crashed before it removed them), and says so: an unpacked source
// tarball and a clone copied out for detection (made by package source), the Go
// wrappers. Each records its owner (see [procowner]).
func (p *Pipeline) reclaimTempDirs() {
	for _, prefix := range []string{source.TempPrefix, source.TreeTempPrefix, gotool.TempWrappers} {
		removed, err := procowner.RemoveStale(filepath.Join(os.TempDir(), prefix+"*"))
		for _, st := range removed {
			p.cfg.Logger.Warn("reclaimed the temporary directory of a run that ended without removing it (killed or crashed)", "dir", st.Dir, "owner", st.Owner.PID)
			if p.opts.events != nil {
				p.opts.events(atesor.Event{Kind: atesor.EventInfo, Line: fmt.Sprintf("reclaimed %s, left behind by %s (killed or crashed)", st.Dir, st.Owner)})
			}
		}
		if err != nil {
			p.cfg.Logger.Warn("could not remove the temporary directory of a run that is gone", "err", err)
		}
	}
}

// fetchSource gets a request's source onto the host through package source, within the
// Config's download and extraction bounds. Downloaded tarballs are kept under
// <Home>/downloads, so the recipe-cache check and the run that follows it (and a resumed
// run) fetch a URL once; without a Home, in a directory under the system's temporary
// directory (never under $HOME).
func (p *Pipeline) fetchSource(ctx context.Context, raw string) (*source.Source, error) {
	o := source.Options{DownloadMaxBytes: p.cfg.DownloadMaxBytes, DownloadStall: p.cfg.DownloadStall,
		ExtractMaxBytes: p.cfg.ExtractMaxBytes, ExtractMaxEntries: p.cfg.ExtractMaxEntries}
	if p.cfg.Home != "" {
		o.DownloadDir = filepath.Join(p.cfg.Home, "downloads")
	}
	return source.Resolve(ctx, raw, o)
}
