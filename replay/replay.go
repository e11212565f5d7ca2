package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/gotool"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
	"github.com/eclipse-atesor/atesor-go/recipe"
	"github.com/eclipse-atesor/atesor-go/source"
)

// The verdicts of a replay.
const (
	// Reproduced: every primary artifact of the port was rebuilt with the same SHA-256.
	Reproduced = "reproduced"
	// Differs: the commands ran, but some primary artifact is missing or differs.
	Differs = "differs"
	// Failed: a command of the recipe failed, a patch did not apply, or the recipe was
	// refused by the command rules before anything ran.
	Failed = "failed"
)

// ErrSourceChanged is returned (wrapped) when the source of a replay is not the one the
// port was built from.
var ErrSourceChanged = errors.New("the source is not the one the recipe was made from")

// ArtifactDiff is a primary artifact a replay did not reproduce.
type ArtifactDiff struct {
	Path string `json:"path"`
	Want string `json:"want_sha256"`
	// Got is the replayed file's SHA-256; "" when the replay did not build it.
	Got string `json:"got_sha256,omitempty"`
}

// Result is the outcome of a replay.
type Result struct {
	Package string `json:"package"`
	Sandbox string `json:"sandbox"`
	Verdict string `json:"verdict"`
	// Compared counts the primary artifacts compared.
	Compared int            `json:"compared"`
	Differs  []ArtifactDiff `json:"differs,omitempty"`
	// Failure says which command failed and how, for Failed.
	Failure         string   `json:"failure,omitempty"`
	Commands        []string `json:"commands"`
	SourceDateEpoch int64    `json:"source_date_epoch,omitempty"`
	// Duration is the replay's wall time (JSON: duration_seconds).
	Duration time.Duration `json:"-"`
}

// MarshalJSON writes Duration as duration_seconds ([atesor.Seconds]).
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	return json.Marshal(struct {
		plain
		Duration atesor.Seconds `json:"duration_seconds"`
	}{plain(r), atesor.Seconds(r.Duration)})
}

// UnmarshalJSON reads duration_seconds into Duration.
func (r *Result) UnmarshalJSON(b []byte) error {
	type plain Result
	v := struct {
		*plain
		Duration atesor.Seconds `json:"duration_seconds"`
	}{plain: (*plain)(r)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	r.Duration = v.Duration.Duration()
	return nil
}

// Prepare checks a replay input before anything runs and returns the commands to run:
// the package name must be a safe file name and a recorded Go toolchain a Go release
// (its GOROOT is recomputed in in, never taken from the recipe folder); the recipe's
// command block is read ([recipe.Commands]); the port must have a primary artifact to
// compare. An error means the replay cannot be carried out. refused is not empty when
// the command block or a patch does not pass the rules a model's plan and fixes pass:
// then nothing may run, and the replay's verdict is [Failed] with refused as the reason.
func Prepare(in *Input) (cmds []string, refusedWhy string, err error) {
	if err := checkInput(in); err != nil {
		return nil, "", err
	}
	cmds, err = recipe.Commands(in.Recipe)
	if err != nil {
		return nil, "", err
	}
	if len(in.Artifacts) == 0 {
		return nil, "", errors.New("the port has no primary artifact to compare")
	}
	return cmds, refused(cmds, in.Patches, "/workspace/"+in.Package), nil
}

// CheckSHA256 checks the replay's source against the SHA-256 the port recorded for its
// tarball, when it recorded one: got is the SHA-256 of the source the replay resolved
// ("" for a directory or a git URL, which then cannot be the recorded tarball). A
// different source is [ErrSourceChanged].
func CheckSHA256(in Input, got string) error {
	if in.SourceSHA256 != "" && got != in.SourceSHA256 {
		return fmt.Errorf("%w: %s has SHA-256 %s, the port's was %s", ErrSourceChanged, source.RedactURL(in.Source), got, in.SourceSHA256)
	}
	return nil
}

// CheckCommit checks the commit the replay's clone is at against the port's, when both
// are known. A different commit is [ErrSourceChanged].
func CheckCommit(in Input, got string) error {
	if in.SourceCommit != "" && got != "" && got != in.SourceCommit {
		return fmt.Errorf("%w: the clone is at commit %s, the port's was %s", ErrSourceChanged, got, in.SourceCommit)
	}
	return nil
}

// Steps are what a replay does in the sandbox that holds the placed source. The
// pipeline implements them with the machinery a port uses, so a replayed command runs
// exactly as the port's did (directory, environment, SOURCE_DATE_EPOCH, checks, logs).
type Steps interface {
	// Patch applies a unified diff to the repository; name labels it in errors.
	Patch(ctx context.Context, name, diff string) error
	// PrepareGo makes the Go toolchain ready before a command that runs go: the one
	// the port recorded, else the one the module needs.
	PrepareGo(ctx context.Context) error
	// Run runs one command of the recipe; failed reports that it ran and failed. An
	// error means it could not be run.
	Run(ctx context.Context, line string) (res atesor.CommandResult, failed bool, err error)
	// Artifacts finds the artifacts the commands built, with their SHA-256.
	Artifacts(ctx context.Context) ([]atesor.Artifact, error)
}

// Execute applies the patches, runs the prepared commands ([Prepare]) and compares the
// primary artifacts by path and SHA-256. It returns a result with the verdict, the
// commands, what differs or what failed; its Sandbox, SourceDateEpoch and Duration are
// the caller's to fill. An error means the replay could not be carried out (the
// context ended, or the sandbox failed).
func Execute(ctx context.Context, in Input, cmds []string, st Steps) (*Result, error) {
	res := &Result{Package: in.Package, Commands: cmds}
	failed := func(why string) (*Result, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res.Verdict, res.Failure = Failed, why
		return res, nil
	}
	for i, d := range in.Patches {
		if err := st.Patch(ctx, fmt.Sprintf("patch %d", i+1), d); err != nil {
			return failed(err.Error())
		}
	}
	for _, line := range cmds {
		if gotool.UsesGo(line) {
			if err := st.PrepareGo(ctx); err != nil {
				return failed(err.Error())
			}
		}
		out, bad, err := st.Run(ctx, line)
		if err != nil {
			return nil, err
		}
		if bad {
			res.Verdict, res.Failure = Failed, fmt.Sprintf("`%s` failed (exit %d): %s", line, out.ExitCode, excerpt.Tail(strings.TrimSpace(out.Output), 1000))
			return res, nil
		}
	}
	arts, err := st.Artifacts(ctx)
	if err != nil {
		return nil, err
	}
	res.Differs, res.Compared = compareArtifacts(in.Artifacts, arts), len(in.Artifacts)
	res.Verdict = Reproduced
	if len(res.Differs) > 0 {
		res.Verdict = Differs
	}
	return res, nil
}

// compareArtifacts lists the wanted artifacts that the replayed ones do not match by
// path and SHA-256.
func compareArtifacts(want, got []atesor.Artifact) []ArtifactDiff {
	byPath := map[string]string{}
	for _, a := range got {
		byPath[a.Path] = a.SHA256
	}
	var diffs []ArtifactDiff
	for _, w := range want {
		if g := byPath[w.Path]; g != w.SHA256 {
			diffs = append(diffs, ArtifactDiff{Path: w.Path, Want: w.SHA256, Got: g})
		}
	}
	return diffs
}
