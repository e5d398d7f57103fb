package cli

import (
	"bytes"
	"context"
	"io"
	"path/filepath"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/replicates"
	"github.com/retrysim/retrysim/internal/shardrun"
	"github.com/retrysim/retrysim/internal/tune"
)

// Family is a fleet-family kind's runs as its flags made them, and what
// the kind prints of them: the run, or with -set a sweep of it.
type Family[C, P, R any] struct {
	Kind    replicates.Kind[C, P, R]
	Runs    []C
	Name    string // what ran, in a sweep's title
	Echo    any    // what the settings made beyond their flags, a shard's echo
	Refused func(error) error
	// Grid makes and checks a sweep's runs, a point's after another's;
	// Outputs are a run's document, series and picture (by the files'
	// extensions).
	Grid    func(paths []string, points [][]string) ([]C, error)
	Outputs func(rr render.Renderer, res []R, seriesExt, plotExt string) (main, ser, pic []byte, err error)
}

// Work is f's work for r's flags, a replicate of every run (f's, or with
// -set a point's of a sweep) an item.
func (f Family[C, P, R]) Work(r *Run, stdout, stderr io.Writer) (*shardrun.Work, error) {
	names := make([]string, len(f.Runs))
	for i, c := range f.Runs {
		names[i] = f.Kind.Name(c)
	}
	if err := r.require(f.Kind.Keys, names); err != nil {
		return nil, err
	}
	if !r.sweeping() {
		return Work(r, "replicates", f.Echo, f.Items(f.Runs, r.Replicates.V, r.Options(stderr), false, func(ctx context.Context, res []R) error {
			main, ser, pic, err := f.Outputs(r.O.Renderer(stdout), res, filepath.Ext(r.Series.Path), filepath.Ext(r.Plot.Path))
			if err != nil {
				return err
			}
			return r.Write(ctx, stdout, func() []tune.Row { return tune.FigureRows(f.Kind.Rows(res)) }, main, ser, pic)
		})), nil
	}
	paths, points, err := r.grid()
	if err != nil {
		return nil, err
	}
	runs, err := f.Grid(paths, points)
	if err != nil {
		return nil, setRefused(err)
	}
	return Work(r, "replicates of points", f.Echo, f.Items(runs, len(points)*r.Replicates.V, r.Options(stderr), true, func(ctx context.Context, res []R) error {
		var main bytes.Buffer
		if err := r.O.Renderer(stdout).Runs(&main, f.Kind.Sweep(r.head(f.Name, paths), points, len(f.Runs), res)); err != nil {
			return err
		}
		return r.Write(ctx, stdout, nil, main.Bytes(), nil, nil)
	})), nil
}

// Items are n items of runs with opts, len(f.Runs) runs a point (of a
// sweep's points), an item a replicate of every run of a point: finish
// writes the outputs of their results.
func (f Family[C, P, R]) Items(runs []C, n int, opts fleet.Options, points bool, finish func(context.Context, []R) error) shardrun.Items[[]P] {
	want, perPoint := "the settings make %d", len(f.Runs)
	if points {
		want += " a point"
	}
	return shardrun.Items[[]P]{N: n,
		Run: func(ctx context.Context, lo, hi int) ([][]P, error) {
			out, err := f.Kind.Run(ctx, runs, perPoint, opts, lo, hi)
			if err != nil && f.Refused != nil {
				err = f.Refused(err)
			}
			return out, err
		},
		Check: func(i int, item *[]P) error {
			return f.Kind.Check(runs, perPoint, opts.Replicates, i, *item, want)
		},
		Finish: func(ctx context.Context, all [][]P) error {
			return finish(ctx, f.Kind.Fold(runs, perPoint, all))
		}}
}

// Work is r's run of it, its items noun, echo its shards' echo.
func Work[T any](r *Run, noun string, echo any, it shardrun.Items[T]) *shardrun.Work {
	return shardrun.Cut(&shardrun.Work{Kind: r.Kind, Noun: noun, Echo: echo, Shard: r.Shard, Settings: shardrun.Settings(r.FS, r.Args), Out: r.O.Out}, it)
}
