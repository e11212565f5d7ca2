package graph

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/cloudwego/eino/compose"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/repair"
	"github.com/eclipse-atesor/atesor-go/source"
)

// ErrInterrupted is returned (wrapped) by a run of one package that was cancelled: its
// state is saved and the run can be resumed with Request.Resume. (A batch of ports that
// was cancelled reports batch.ErrStopped.)
var ErrInterrupted = errors.New("run interrupted; its state is saved, resume it with Request.Resume")

// Pipeline is the porting pipeline. It implements [atesor.Graph]; one Pipeline can run
// many packages, one at a time or concurrently.
type Pipeline struct {
	cfg  Config
	opts options
	// contents is the Contents index of the scripted repairs, opened on first use.
	contents repair.Index
	// dists is how Debian builds the sources the pipeline's runs looked up.
	dists distCache
	// crates is the distribution's crate index, loaded by the first cargo port.
	crates crateCache
}

var _ atesor.Graph = (*Pipeline)(nil)

// New returns the porting pipeline for cfg. It checks the options first (a node
// replaced by nil or under a name that is not a replaceable node, a validator of a type
// no node asks for), then the Config, and reports every problem it found in one error.
func New(cfg Config, opts ...Option) (*Pipeline, error) {
	o := options{clock: atesor.RealClock{}, now: time.Now}
	for _, fn := range opts {
		if fn == nil {
			o.errs = append(o.errs, errors.New("a nil Option"))
			continue
		}
		fn(&o)
	}
	errs := o.errs
	errs = append(errs, o.checkNodes()...)
	if err := o.checkValidators(); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, cfg.check()...)
	if len(errs) > 0 {
		return nil, fmt.Errorf("graph: %w", errors.Join(errs...))
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Pipeline{cfg: cfg, opts: o}, nil
}

// Run ports one package. It returns an error only when the run could not be carried out
// (a bad request, an unreadable source, an interrupt); a port that fails is a Result
// with its status and failure class. The Result's status is always final (see
// [atesor.Status.Final]); Result.State is the final run state. Run is [Pipeline.RunWith]
// without options.
func (p *Pipeline) Run(ctx context.Context, req atesor.Request) (*atesor.Result, error) {
	return p.RunWith(ctx, req)
}

// RunWith is Run with per-run Eino compose options, passed to the graph's Invoke: most
// often compose.WithCallbacks(handler), which sees every node of the run (RunInfo.Name
// is the node's registered name, Component "Lambda") and every model call (Component
// components.ComponentOfChatModel, Name the model id, with token usage on OnEnd). Options
// are not used for a recipe-cache hit, which runs no graph.
func (p *Pipeline) RunWith(ctx context.Context, req atesor.Request, opts ...compose.Option) (*atesor.Result, error) {
	req = req.WithDefaults()
	platform, err := knowledge.Profile(req.Platform)
	if err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	if req.Source == "" {
		return nil, errors.New("graph: the request has no source (a directory, a tarball or a git URL)")
	}
	name := source.RequestName(req)
	outDir := req.OutputDir
	if outDir == "" {
		outDir = p.cfg.OutputDir
	}
	if outDir == "" {
		return nil, errors.New("graph: no output directory: set Config.OutputDir or Request.OutputDir")
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, fmt.Errorf("graph: output directory: %w", err)
	}
	req.OutputDir = outDir
	p.reclaimTempDirs()
	src, err := p.fetchSource(ctx, req.Source)
	if err != nil {
		return nil, fmt.Errorf("graph: %w", source.RedactError(err, req.Source))
	}
	defer src.Close()
	// Credentials in the source URL are used to fetch it and nowhere else: the state,
	// report, recipe, cache, logs and package zip see the URL without them.
	req.Source = source.RedactURL(req.Source)

	var seed *atesor.CachedRecipe
	if !req.Force && !req.Resume && p.cfg.Memory != nil {
		if req.Optimize {
			// Performance mode rebuilds a cached port from its recipe, then measures it.
			seed, _ = p.lookup(ctx, name, platform, src)
		} else if res, err := p.fromCache(ctx, req, name, platform, src); err != nil || res != nil {
			return res, err
		}
	}

	r, err := p.newRun(ctx, req, name, platform, src)
	if err != nil {
		return nil, err
	}
	defer r.close()
	if seed != nil {
		r.seedFromCache(seed)
	}
	return r.execute(ctx, opts...)
}

// compile builds the Eino graph of one run: every work node goes back to the supervisor,
// whose branch picks the next node; finish and escalate end the run.
func (r *run) compile(ctx context.Context) (compose.Runnable[string, string], error) {
	g := compose.NewGraph[string, string](compose.WithGenLocalState(func(context.Context) *atesor.State { return r.state }))
	ends := map[string]bool{compose.END: true}
	sup := compose.InvokableLambda(func(ctx context.Context, in string) (string, error) {
		var next string
		err := compose.ProcessState(ctx, func(ctx context.Context, s *atesor.State) error {
			next = r.supervise(s, in)
			return nil
		})
		return next, err
	})
	if err := g.AddLambdaNode(NodeSupervisor, sup, compose.WithNodeName(NodeSupervisor)); err != nil {
		return nil, err
	}
	for _, name := range workNodes {
		name := name
		node := r.node(name)
		if err := g.AddLambdaNode(name, compose.InvokableLambda(func(ctx context.Context, _ string) (string, error) {
			return name, compose.ProcessState(ctx, func(ctx context.Context, s *atesor.State) error {
				return r.runNode(ctx, name, node, s)
			})
		}), compose.WithNodeName(name)); err != nil {
			return nil, err
		}
		ends[name] = true
		to := NodeSupervisor
		if name == NodeEscalate || name == NodeOptimize {
			to = compose.END
		}
		if err := g.AddEdge(name, to); err != nil {
			return nil, err
		}
	}
	if err := g.AddEdge(compose.START, NodeSupervisor); err != nil {
		return nil, err
	}
	branch := compose.NewGraphBranch(func(_ context.Context, next string) (string, error) {
		if next == nodeEnd {
			return compose.END, nil
		}
		return next, nil
	}, ends)
	if err := g.AddBranch(NodeSupervisor, branch); err != nil {
		return nil, err
	}
	return g.Compile(ctx, compose.WithGraphName("atesor-port"), compose.WithMaxRunSteps(maxSteps(r.state.Request)))
}

// maxSteps bounds the graph: each failed attempt costs at most build, verify and fix
// with a supervisor step after each, re-scouts add a few, and the fixed nodes run once.
func maxSteps(req atesor.Request) int {
	req = req.WithDefaults()
	return 2*len(workNodes) + 8*(req.MaxAttempts+len(replanSignatures)+2) + 10
}

func profileFor(name string) (atesor.Platform, error) {
	p, err := knowledge.Profile(name)
	if err != nil {
		return atesor.Platform{}, fmt.Errorf("graph: %w", err)
	}
	return p, nil
}
