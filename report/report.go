// Package report renders what a retrysim run measured, in the formats and
// documents the retrysim command prints: a job or delivery run's Report
// (and a merge's), a sweep, and a fleet run, each as a table, markdown,
// csv, json or an html page, and a sweep's or a fleet run's plot as png or
// svg.
//
// A Reporter writes one document in one format, as vegeta's reporters do:
//
//	rep, err := retrysim.Run(ctx, e)
//	...
//	r, err := report.NewReport(rep, report.Options{Format: report.JSON})
//	...
//	err = r.Report(os.Stdout)
//
// The bytes are the command's for the same run, byte for byte.
package report

import (
	"bytes"
	"fmt"
	"io"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetpreset"
	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/internal/render"
)

// Format is an output format.
type Format string

// The formats: every document is written as Table, Markdown, CSV, JSON
// and HTML; a sweep's and a fleet run's plot as PNG and SVG.
const (
	// Table is the default: text tables with a title, for a terminal.
	Table Format = "table"
	// Markdown is the table format as markdown tables.
	Markdown Format = "markdown"
	// CSV writes a row a strategy (or a sweep's point and strategy, or a
	// fleet run), with every counter and metric as raw numbers.
	CSV Format = "csv"
	// JSON writes the parameters and the same rows as CSV, indented.
	JSON Format = "json"
	// HTML writes one self-contained page, with the plot where the
	// document has one.
	HTML Format = "html"
	// PNG draws a sweep's or a fleet run's plot as a raster image.
	PNG Format = "png"
	// SVG draws the same plot as a vector image.
	SVG Format = "svg"
)

// Reporter writes one document in one format.
type Reporter func(w io.Writer) error

// Report writes the document to w.
func (r Reporter) Report(w io.Writer) error { return r(w) }

// Options choose how a document is written.
type Options struct {
	// Format is the output format; "" is Table.
	Format Format
	// Intervals shows each figure's 95% interval in a report's and a
	// sweep's table formats and html; csv and json always carry them.
	Intervals bool
	// Expect shows each strategy's closed-form expectations and z-scores,
	// for a report of the job model (the closed forms do not cover the
	// delivery model).
	Expect bool
	// LogY draws a sweep's line plot (one swept parameter) on a log y axis;
	// by default it is logarithmic when its values span more than two decades.
	LogY bool
}

// renderer is the format called f ("" for Table) that writes document d.
func renderer(d render.Doc, f Format) (render.Renderer, error) {
	if f == "" {
		f = Table
	}
	return render.Lookup(d, string(f))
}

// image is f's file extension when f is an image format, "" when not.
func image(f Format) string {
	if f == PNG || f == SVG {
		return "." + string(f)
	}
	return ""
}

// NewReport returns the Reporter of rep, a run's or a merge's report, in
// opts.Format; Expect is refused for the delivery model.
func NewReport(rep retrysim.Report, opts Options) (Reporter, error) {
	r, err := renderer(render.ReportDoc, opts.Format)
	if err != nil {
		return nil, err
	}
	res := jobapi.Results(rep, opts.Intervals, opts.Expect)
	if opts.Expect && res.Params.Delivery != nil {
		return nil, fmt.Errorf("Options.Expect: the closed forms cover the job model, not the delivery model")
	}
	return whole(func(w io.Writer) error { return r.Report(w, res) }), nil
}

// whole is write as a Reporter that writes the whole document or nothing.
func whole(write func(io.Writer) error) Reporter {
	return func(w io.Writer) error {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			return err
		}
		_, err := w.Write(b.Bytes())
		return err
	}
}

// NewSweep returns the Reporter of res, a sweep's result, in opts.Format:
// the table formats pivot retrysim.Sweep.Metric, csv and json carry a row a
// point and strategy, PNG and SVG need one or two swept parameters.
func NewSweep(res retrysim.SweepResult, opts Options) (Reporter, error) {
	s := jobapi.SweepStats(res)
	s.CI = opts.Intervals
	swept := len(s.Swept)
	var po render.PlotOptions
	switch {
	case opts.LogY && swept != 1:
		return nil, fmt.Errorf("Options.LogY shapes a line plot, of one swept parameter; this sweep has %d", swept)
	case opts.LogY:
		po.Y = render.LogScale
	}
	if ext := image(opts.Format); ext != "" {
		if swept < 1 || swept > 2 {
			return nil, fmt.Errorf("a plot needs one or two swept parameters; this sweep has %d", swept)
		}
		return whole(func(w io.Writer) error { return render.PlotSweep(w, s, ext, po) }), nil
	}
	r, err := renderer(render.SweepDoc, opts.Format)
	if err != nil {
		return nil, err
	}
	return whole(func(w io.Writer) error { return r.Sweep(w, s, po) }), nil
}

// NewFleet returns the Reporter of a fleet run in opts.Format: results are
// fleet.Run's, run the fleet.Options it had.
func NewFleet(results []fleet.Result, run fleet.Options, opts Options) (Reporter, error) {
	if len(results) == 0 {
		return nil, fmt.Errorf("NewFleet: no results")
	}
	configs := make([]fleet.Config, len(results))
	for i := range results {
		configs[i] = results[i].Config
	}
	doc := render.FleetRun{Preset: fleetpreset.Preset[fleet.Config]{Name: "one run"}, Replicates: max(1, run.Replicates), Seed: run.Seed,
		Configs: configs, Results: results}
	ext := image(opts.Format)
	f := opts.Format
	if ext != "" {
		f = JSON
	}
	r, err := renderer(render.FleetDoc, f)
	if err != nil {
		return nil, err
	}
	return func(w io.Writer) error {
		out, _, pic, err := r.FleetOutputs(doc, "", ext)
		if err != nil {
			return err
		}
		if ext != "" {
			out = pic
		}
		_, err = w.Write(out)
		return err
	}, nil
}
