package render

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetpreset"
	"github.com/retrysim/retrysim/internal/fleetrun"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/limits"
)

// FleetRun is what one `retrysim fleet` ran: a preset's runs, or the one run of its flags.
type FleetRun struct {
	Preset     fleetpreset.Preset[fleet.Config]
	Replicates int
	Seed       uint64
	Configs    []fleet.Config
	Results    []fleet.Result
	// ScenarioFile is the file the one run's policy and hedges came from, if any.
	ScenarioFile string
}

// FleetOutputs renders run as the fleet command prints it, series and plot by extension.
func (r Renderer) FleetOutputs(run FleetRun, seriesExt, plotExt string) (out, series, plot []byte, err error) {
	p := run.Preset
	secs := human.Duration(run.Configs[0].Duration)
	params := runParams(p.Name, p.Source, run.Replicates, run.Seed)
	scen := ""
	if run.ScenarioFile != "" {
		params = append(params, "scenario file: "+Escaped(run.ScenarioFile))
		scen = ", scenario file " + Escaped(run.ScenarioFile)
	}
	// what follows the title's seed: the scenario file, and one run's settings.
	what := scen
	if p.Runs == nil && len(run.Configs) == 1 {
		_, own := splitSettings(run.Configs)
		what += "; " + own[0]
	}
	names := mapped(run.Configs, func(c fleet.Config) string { return c.Name })
	params = append(params, settingsLines(names, run.Configs)...)
	if p.Totals {
		rows := mapped(run.Results, fleetrun.Fleet().Totals)
		reps := replicatesNoted(run.Replicates, "counts summed over them")
		title := fmt.Sprintf("retrysim fleet: %s, %s, %s, seed %d%s", p.Name, secs, reps, run.Seed, what)
		plotTitle := fmt.Sprintf("retrysim fleet: %s, %s, %s, seed %d%s", p.Name, secs, replicatesText(run.Replicates), run.Seed, scen)
		rep := TotalsReport{Title: title, Rows: rows, ByClients: p.ByClients, Params: params, Results: run.Results, PlotTitle: plotTitle,
			Configs: run.Configs, Replicates: run.Replicates, Seed: run.Seed, Scenario: run.ScenarioFile}
		return r.Outputs(rep, "", nil, plotExt, func(w io.Writer, ext string) error {
			return PlotFleetTotals(w, plotTitle, run.Results, p.ByClients, ext)
		})
	}
	reps := replicatesNoted(run.Replicates, "[lo, hi]: 95% intervals over them")
	rep := FleetReport{
		Title:      fmt.Sprintf("retrysim fleet: %s, %s, %s, seed %d%s", p.Name, secs, reps, run.Seed, what),
		Params:     params,
		Configs:    run.Configs,
		PlotTitle:  fmt.Sprintf("retrysim fleet: %s, %s, means of %s, seed %d%s", p.Name, secs, replicatesText(run.Replicates), run.Seed, scen),
		RunConfigs: run.Configs,
		Replicates: run.Replicates,
		Seed:       run.Seed,
		Scenario:   run.ScenarioFile,
	}
	for _, res := range run.Results {
		rep.Rows = append(rep.Rows, fleetrun.Fleet().Summary(res))
		pts := fleetrun.Fleet().Series(res)
		rep.Runs = append(rep.Runs, pts)
		rep.Series = append(rep.Series, pts...)
	}
	draw := func(w io.Writer, ext string) error { return PlotFleet(w, rep.PlotTitle, rep.Runs, rep.Configs, ext) }
	if p.Spikes { // one picture of the runs against the spike's height, as -plot draws them
		rep.Runs, rep.Configs, rep.Spikes = nil, nil, run.Results
		draw = func(w io.Writer, ext string) error {
			return encodeWhole(w, ext)(newSpikeFigure(rep.PlotTitle, run.Results))
		}
	}
	return r.Outputs(rep.report(), seriesExt, rep.report().writeSeries, plotExt, draw)
}

// Outputs are doc in r's format and, by extension ("" for none), its series and plot.
func (r Renderer) Outputs(doc Runs, seriesExt string, series func(io.Writer, string) error, plotExt string,
	plot func(io.Writer, string) error) (out, ser, pic []byte, err error) {
	var o, s, p bytes.Buffer
	if err := r.Runs(&o, doc); err != nil {
		return nil, nil, nil, err
	}
	if seriesExt != "" {
		if err := series(&s, seriesExt); err != nil {
			return nil, nil, nil, err
		}
	}
	if plotExt != "" {
		if err := plot(&p, plotExt); err != nil {
			return nil, nil, nil, err
		}
	}
	return o.Bytes(), s.Bytes(), p.Bytes(), nil
}

// CheckFleetFiles refuses a -series or -plot file name ("" for none) it cannot write.
func CheckFleetFiles(series, plot string) error {
	if series != "" {
		if err := checkExt(series, ".csv", ".json"); err != nil {
			return fmt.Errorf("-series: %w", err)
		}
	}
	if plot != "" {
		if err := CheckPlotPath(plot); err != nil {
			return fmt.Errorf("-plot: %w", err)
		}
	}
	return nil
}

// Presets lists a kind's presets for its command's -help: a preset's name, then its source and about.
func Presets[R any](ps []fleetpreset.Preset[R]) string {
	const indent = "                    "
	var b strings.Builder
	for _, p := range ps {
		head := fmt.Sprintf("  %-18s", p.Name)
		if len(head) > len(indent) {
			head += "\n" + indent
		}
		about := fmt.Sprintf("%s; %s and %s unless -duration or -replicates say otherwise.", p.About+presetPrints(p, ps),
			human.Duration(p.Duration), replicatesText(p.Replicates))
		fmt.Fprintf(&b, "%s%s\n%s%s\n", head, indentWrap(p.Source+".", 60, indent), indent, indentWrap(about, 60, indent))
	}
	return b.String()
}

// totalsPrints is what the fleet command prints of a totals preset.
const totalsPrints = "prints a row a failure rate and policy (json and csv: failure_rate, policy, requests, succeeded, " +
	"calls, summed over replicates); no -series; -plot draws success and calls a request against the failure rate, " +
	"a line a policy, with 95% intervals over replicates; html is one page: success and calls a request as two tables " +
	"(a row a failure rate, a column a policy) with their intervals, and that plot"

// presetPrints says, after p's About, how the command prints p's runs
// where ps print differently: in full for the first of its kind, else
// "printed as" that first one.
func presetPrints[R any](p fleetpreset.Preset[R], ps []fleetpreset.Preset[R]) string {
	if !slices.ContainsFunc(ps, func(q fleetpreset.Preset[R]) bool { return q.Totals }) {
		return ""
	}
	first := ps[slices.IndexFunc(ps, func(q fleetpreset.Preset[R]) bool { return q.Totals == p.Totals })]
	var text string
	switch {
	case first.Name != p.Name:
		text = fmt.Sprintf(", printed as %s's", first.Name)
		if p.ByClients {
			text += " with clients first"
		}
	case p.Totals:
		text = "; " + totalsPrints
	}
	if p.Spikes {
		text += "; -plot draws recovery and duplicates against the height, and html draws that picture under the table instead of a run's series"
	}
	return text
}

// Limit is a bound the fleet model checks before any work, as -help states it.
type Limit struct{ What, Bound string }

// FleetLimitList are the fleet model's limits, from the constants fleet.Check enforces.
func FleetLimitList() []Limit {
	return []Limit{
		{"-duration", fmt.Sprintf("1 s to %d s (the series holds a row a run a second)", limits.FleetDuration)},
		{"rates", fmt.Sprintf("up to %v a second; duration x peak rate up to %v requests", limits.FleetRate, limits.FleetArrivals)},
		{"-replicates", fmt.Sprintf("1 to %d; replicates x duration up to %d s (each replicate's series is kept until they are averaged)", limits.FleetReplicates, limits.FleetSeriesSeconds)},
		{"-clients", fmt.Sprintf("1 to %d; -attempts 1 to %d", limits.FleetClients, limits.FleetAttempts)},
		{"-capacity", fmt.Sprintf("up to %d workers; -queue up to %d waiting calls", limits.FleetWorkers, limits.FleetQueue)},
		{"times", fmt.Sprintf("(-base, -slope, -service, -net, -timeout, ...) up to %d s", limits.FleetSeconds)},
		{"policies", fmt.Sprintf("token counts and costs (-bucket-*, -quota*, -grpc-*) up to %v; -breaker-threshold 0 to 1; "+
			"-budget-ratio 0 to %v (finagle) or 1 (envoy); -budget-ttl %v s to %v s; -cb-window, -cb-min-calls, -cb-half-open 1 to %v; "+
			"-sre-k above 0 to %v; -hedges 0 to %v", limits.PolicyTokens, limits.PolicyBudgetRatio, limits.PolicyMinTTL, limits.PolicyMaxTTL, limits.PolicyWindow, limits.PolicyK, limits.FleetHedges)},
		{"events", fmt.Sprintf("up to %.0e over every run and replicate, about 40 CPU minutes: a request makes "+
			"up to -attempts x (1 + -hedges) calls of up to 5 events each", float64(limits.FleetEvents))},
		{"memory", fmt.Sprintf("up to %d GiB at once: each replicate running (up to -workers at once, fewer when they would not fit) holds its requests in flight "+
			"(the rate x how long one can live: -timeout x -attempts, hedge delays, backoffs, its time in the server), "+
			"its policy windows (-budget-ttl, -cb-window*, -sre-window, a state per client) and its series, kept for "+
			"every replicate until they are averaged", limits.FleetBytes>>30)},
	}
}

// FleetLimits lists the limits for -help, a paragraph each, wrapped at 80 columns.
func FleetLimits(ls []Limit) string {
	const indent = "                "
	var b strings.Builder
	for _, l := range ls {
		fmt.Fprintf(&b, "  %-14s%s\n", l.What, indentWrap(l.Bound, 80-len(indent), indent))
	}
	return b.String()
}

// indentWrap wraps text at width columns, indenting every line but the first.
func indentWrap(text string, width int, indent string) string {
	return strings.TrimSuffix(strings.TrimPrefix(human.Wrap(text, indent, width+len(indent)), indent), "\n")
}
