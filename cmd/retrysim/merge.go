package main

import (
	"context"
	"fmt"
	"io"

	api "github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/shardfile"
	"github.com/retrysim/retrysim/internal/shardrun"
	"github.com/retrysim/retrysim/internal/stats"
)

// mergeCommand reads shard files, checks that they make one whole run, and
// prints the run's report.
func mergeCommand(ctx context.Context, args []string, stdout, _ io.Writer) error {
	if handled, err := shardrun.Merge(ctx, args, stdout, shardKinds); handled {
		return err
	}
	var ci, expect bool
	var o flagval.Output
	fs := flagval.NewFlagSet("retrysim merge")
	o.Register(fs, render.ReportDoc, "", "; not one of the shard files")
	fs.BoolVar(&ci, "ci", false, "show 95% intervals in the table (csv and json always carry them)")
	fs.BoolVar(&expect, "expect", false, "show each strategy's closed-form expectations and z-scores")
	if err := flagval.ParseFlags(fs, flagval.Interspersed(fs, args), fmt.Sprintf(helpText("merge"), stats.MaxShardBytes>>20, shardfile.MaxBytes>>20), stdout); err != nil {
		return err
	}
	if err := outfile.Check(o.Out); err != nil {
		return flagval.Usage(err)
	}
	files := fs.Args()
	if len(files) == 0 {
		return flagval.Usage(fmt.Errorf("merge: no shard files given (want retrysim merge FILES...)"))
	}
	if err := outfile.NotInput(o.Out, "shard file", files); err != nil {
		return flagval.Usage(err)
	}
	rep, err := api.MergeFiles(files...)
	if err != nil {
		return flagval.Usage(fmt.Errorf("merge: %w", err))
	}
	res := jobapi.Results(rep, ci, expect)
	if err := jobapi.CheckExpect(expect, res.Params.Delivery != nil); err != nil {
		return flagval.LibraryError(err)
	}
	return o.Out.Render(ctx, stdout, func(w io.Writer) error { return o.Renderer(stdout).Report(w, res) })
}
