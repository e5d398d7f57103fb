package jobcmd

import (
	"context"
	"fmt"
	"io"

	api "github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/render"
)

// Merge reads the table's shard files, checks that they make one whole
// run, and prints the run's report; help is merge's -help text.
func Merge(ctx context.Context, args []string, help string, stdout io.Writer) error {
	var ci, expect bool
	var o flagval.Output
	fs := flagval.NewFlagSet("retrysim merge")
	o.Register(fs, render.ReportDoc, "", "; not one of the shard files")
	fs.BoolVar(&ci, "ci", false, "show 95% intervals in the table (csv and json always carry them)")
	fs.BoolVar(&expect, "expect", false, "show each strategy's closed-form expectations and z-scores")
	if err := flagval.ParseFlags(fs, flagval.Interspersed(fs, args), help, stdout); err != nil {
		return err
	}
	files := fs.Args()
	if len(files) == 0 {
		return flagval.Usage(fmt.Errorf("merge: no shard files given (want retrysim merge FILES...)"))
	}
	if err := outfile.CheckReading("shard file", files, o.Out); err != nil {
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
