// Package report renders what a retrysim run measured, in the formats and
// documents the retrysim command prints: a job or delivery run's Report
// (and a merge's), a preset's cases, a sweep, and a fleet run, each as a
// table, markdown, csv, json or an html page, and a sweep's or a fleet run's
// plot as png or svg.
//
// A Reporter writes one document in one format, as vegeta's reporters do:
//
//	rep, err := retrysim.Run(ctx, e)
//	...
//	r, err := report.NewReport(rep, report.Options{Format: report.JSON})
//	...
//	err = r.Report(os.Stdout)
//
// The bytes are the command's for the same run: json written here equals
// the command's json byte for byte. csv and json print numbers raw, every
// counter and every metric with its 95% interval; the table formats and
// html format them for people.
package report

import (
	"bytes"
	"fmt"
	"io"
	"slices"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetpreset"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/stats"
)

// Format is an output format.
type Format string

// The formats, each of which writes every document of this package.
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
)

// Formats are every format, the default first.
func Formats() []Format { return []Format{Table, Markdown, CSV, JSON, HTML} }

// Image is the encoding of a plot.
type Image string

// The encodings of a plot.
const (
	// PNG is a raster image.
	PNG Image = "png"
	// SVG is a vector image.
	SVG Image = "svg"
)

// Reporter writes one document in one format.
type Reporter func(w io.Writer) error

// Report writes the document to w.
func (r Reporter) Report(w io.Writer) error { return r(w) }

// Options choose how a run's Report is written.
type Options struct {
	// Format is the output format; "" is Table.
	Format Format
	// Intervals shows each figure's 95% interval in the table formats and
	// html; csv and json always carry them.
	Intervals bool
	// Expect shows each strategy's closed-form expectations and z-scores,
	// for a run of the job model (the closed forms do not cover the
	// delivery model).
	Expect bool
}

// renderer is the format called f ("" for Table) that writes document d.
func renderer(d render.Doc, f Format) (render.Renderer, error) {
	if f == "" {
		f = Table
	}
	return render.Lookup(d, string(f))
}

// NewReport returns the Reporter of rep, a run's or a merge's report, in
// opts.Format. It refuses a format it does not know and expectations asked
// of a run of the delivery model.
func NewReport(rep retrysim.Report, opts Options) (Reporter, error) {
	r, err := renderer(render.ReportDoc, opts.Format)
	if err != nil {
		return nil, err
	}
	if opts.Expect && rep.Params.Delivery != nil {
		return nil, fmt.Errorf("Options.Expect: the closed forms cover the job model, not the delivery model")
	}
	res := rep.Results(opts.Intervals, opts.Expect)
	return whole(func(w io.Writer) error { return r.Report(w, res) }), nil
}

// NewCases returns the Reporter of a preset's cases (retrysim.Preset.Run)
// in f ("" for Table).
func NewCases(c stats.Cases, f Format) (Reporter, error) {
	r, err := renderer(render.CasesDoc, f)
	if err != nil {
		return nil, err
	}
	return whole(func(w io.Writer) error { return r.Cases(w, c) }), nil
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

// PlotOptions choose how a sweep's picture is drawn, on its html page or
// as an image. The zero value draws a line plot's y axis on a log scale
// when its values span more than two decades, and gives heat maps one
// colour scale, so that a colour is the same value in every panel.
type PlotOptions struct {
	// LogY draws a line plot (one swept parameter) on a log y axis.
	LogY bool
	// LinearY draws a line plot on a linear y axis.
	LinearY bool
	// OwnScales gives each heat map (two swept parameters) its own colour scale.
	OwnScales bool
}

// plotOptions are opts for a sweep of swept parameters.
func (opts PlotOptions) plotOptions(swept int) (render.PlotOptions, error) {
	var o render.PlotOptions
	switch {
	case opts.LogY && opts.LinearY:
		return o, fmt.Errorf("PlotOptions: LogY and LinearY ask for opposite scales; set one")
	case (opts.LogY || opts.LinearY) && swept != 1:
		return o, fmt.Errorf("PlotOptions: LogY and LinearY shape a line plot, of one swept parameter; this sweep has %d", swept)
	case opts.OwnScales && swept != 2:
		return o, fmt.Errorf("PlotOptions: OwnScales shapes heat maps, of two swept parameters; this sweep has %d", swept)
	case opts.LogY:
		o.Y = render.LogScale
	case opts.LinearY:
		o.Y = render.LinearScale
	}
	o.OwnScales = opts.OwnScales
	return o, nil
}

// SweepOptions choose how a sweep is written.
type SweepOptions struct {
	// Format is the output format; "" is Table. The table formats pivot
	// the sweep's metric (stats.Sweep.Metric); csv and json carry a row a
	// point and strategy, every metric of it.
	Format Format
	// Plot shapes the picture the html page draws.
	Plot PlotOptions
}

// NewSweep returns the Reporter of s, a sweep's result (retrysim.RunSweep),
// in opts.Format.
func NewSweep(s stats.Sweep, opts SweepOptions) (Reporter, error) {
	r, err := renderer(render.SweepDoc, opts.Format)
	if err != nil {
		return nil, err
	}
	po, err := opts.Plot.plotOptions(len(s.Swept))
	if err != nil {
		return nil, err
	}
	return whole(func(w io.Writer) error { return r.Sweep(w, s, po) }), nil
}

// NewSweepPlot returns the Reporter of s's plot in img: its metric against
// the swept parameter, a line with 95% error bars a strategy, when one
// parameter is swept; a heat map a strategy when two are. It refuses a
// sweep of more parameters or none.
func NewSweepPlot(s stats.Sweep, img Image, opts PlotOptions) (Reporter, error) {
	ext, err := img.ext()
	if err != nil {
		return nil, err
	}
	if n := len(s.Swept); n < 1 || n > 2 {
		return nil, fmt.Errorf("a plot needs one or two swept parameters; this sweep has %d", n)
	}
	po, err := opts.plotOptions(len(s.Swept))
	if err != nil {
		return nil, err
	}
	return whole(func(w io.Writer) error { return render.PlotSweep(w, s, ext, po) }), nil
}

// ext is img's file extension.
func (img Image) ext() (string, error) {
	if img != PNG && img != SVG {
		return "", fmt.Errorf("unknown image %q (want png or svg)", img)
	}
	return "." + string(img), nil
}

// FleetRun is what a fleet run ran and measured, as a document describes
// it: the configurations given to fleet.Run, their results in the same
// order, and how they were run.
type FleetRun struct {
	// Preset names the preset whose runs Configs are (one of the fleet
	// command's presets), which decides what is written: a row and a time
	// series a run, totals by failure rate, or the runs against a spike's
	// height.
	// "" is one run of one's own, named "one run".
	Preset string
	// Configs are the runs' configurations, Results fleet.Run's results of them.
	Configs []fleet.Config
	Results []fleet.Result
	// Replicates and Seed are the fleet.Options the runs had.
	Replicates int
	Seed       uint64
	// ScenarioFile names the scenario file the client's policy came from,
	// if any, for the titles.
	ScenarioFile string
}

// outputs are the fleet run's document in f, and its series and plot
// when seriesExt and plotExt ask for them.
func (run FleetRun) outputs(f Format, seriesExt, plotExt string) (doc, series, pic []byte, err error) {
	r, err := run.check(f)
	if err != nil {
		return nil, nil, nil, err
	}
	p := fleetpreset.Preset[fleet.Config]{Name: "one run"}
	if run.Preset != "" {
		p, _ = fleetpreset.LookupPreset(run.Preset) // check found it
	}
	return r.FleetOutputs(render.FleetRun{Preset: p, Replicates: run.Replicates, Seed: run.Seed,
		Configs: slices.Clone(run.Configs), Results: run.Results, ScenarioFile: run.ScenarioFile}, seriesExt, plotExt)
}

// check refuses a run with no configurations or not a result each, an
// unknown preset, and a format that does not write it.
func (run FleetRun) check(f Format) (render.Renderer, error) {
	if len(run.Configs) == 0 || len(run.Results) != len(run.Configs) {
		return render.Renderer{}, fmt.Errorf("FleetRun: %d configurations and %d results; want one result a configuration, at least one", len(run.Configs), len(run.Results))
	}
	if run.Preset != "" {
		if _, err := fleetpreset.LookupPreset(run.Preset); err != nil {
			return render.Renderer{}, fmt.Errorf("FleetRun: %w", err)
		}
	}
	return renderer(render.FleetDoc, f)
}

// NewFleet returns the Reporter of a fleet run in f ("" for Table): a row
// a run with its 95% intervals over the replicates (json also holds every
// run's series, a point a second; html draws them), or, for a preset that
// compares policies, its totals.
func NewFleet(run FleetRun, f Format) (Reporter, error) {
	if _, err := run.check(f); err != nil {
		return nil, err
	}
	return func(w io.Writer) error {
		doc, _, _, err := run.outputs(f, "", "")
		if err != nil {
			return err
		}
		_, err = w.Write(doc)
		return err
	}, nil
}

// NewFleetSeries returns the Reporter of a fleet run's time series, a row a
// run a second, in f: CSV or JSON (an array of objects).
func NewFleetSeries(run FleetRun, f Format) (Reporter, error) {
	if f != CSV && f != JSON {
		return nil, fmt.Errorf("a fleet run's series is written as csv or json, not %q", f)
	}
	if _, err := run.check(JSON); err != nil {
		return nil, err
	}
	return func(w io.Writer) error {
		_, series, _, err := run.outputs(JSON, "."+string(f), "")
		if err != nil {
			return err
		}
		_, err = w.Write(series)
		return err
	}, nil
}

// NewFleetPlot returns the Reporter of a fleet run's plot in img: each
// run's series in a panel, or, for a preset that compares policies, its
// comparison.
func NewFleetPlot(run FleetRun, img Image) (Reporter, error) {
	ext, err := img.ext()
	if err != nil {
		return nil, err
	}
	if _, err := run.check(JSON); err != nil {
		return nil, err
	}
	return func(w io.Writer) error {
		_, _, pic, err := run.outputs(JSON, "", ext)
		if err != nil {
			return err
		}
		_, err = w.Write(pic)
		return err
	}, nil
}
