package render

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/reportjson"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/schema"
)

// FleetReport is what `retrysim fleet` prints: a row a run and each run's series.
type FleetReport struct {
	Title  string
	Rows   []fleetdata.RunRow
	Series []fleetdata.Point
	// Params are the page's parameter lines; Runs, Configs and PlotTitle its plot's.
	Params    []string
	Runs      [][]fleetdata.Point
	Configs   []fleet.Config
	PlotTitle string
	// Spikes, when not empty, are a spikes preset's runs, drawn as newSpikeFigure does.
	Spikes []fleet.Result
	// RunConfigs are Rows' runs, whose settings json and csv echo.
	RunConfigs []fleet.Config
	Replicates int
	Seed       uint64
	Scenario   string
}

// report is r as every format writes it: csv and json echo each run's settings after its figures.
func (r FleetReport) report() kindReport[fleetdata.RunRow] {
	return kindReport[fleetdata.RunRow]{cs: fleetColumns, rows: r.Rows, caption: fleetCaption(r.Rows),
		head: kindDoc{Title: r.Title, Replicates: r.Replicates, Seed: r.Seed, Scenario: r.Scenario, Recovery: fleetCaption(r.Rows)},
		csvRows: func(rows [][]field) [][]field {
			return withSettingColumns(rows, r.RunConfigs, r.Replicates, r.Seed, r.Scenario)
		},
		jsonRows: func(_ *kindDoc, rows [][]field) ([][]field, error) { return withSettingsObject(rows, r.RunConfigs) },
		series:   fieldRows(r.Series, pointFields), page: r.html}
}

// withSettingColumns appends to each row its run's settings, then the seed and scenario.
func withSettingColumns(rows [][]field, cfgs []fleet.Config, replicates int, seed uint64, scenario string) [][]field {
	if len(cfgs) != len(rows) {
		cfgs = nil // no settings to echo
	}
	per := make([]map[string]any, len(cfgs))
	var keys []string
	for i, c := range cfgs {
		per[i] = map[string]any{}
		for _, f := range settingsObject(fleetSettings(c)) {
			per[i][f.key] = f.value
		}
	}
	for _, p := range append([]string{"duration", "outage"}, paramKeys()...) {
		for _, m := range per {
			if _, ok := m[p]; ok {
				keys = append(keys, p)
				break
			}
		}
	}
	out := make([][]field, len(rows))
	for i, row := range rows {
		f := append([]field{}, row...)
		for _, k := range keys {
			f = append(f, field{"params." + k, per[i][k]}) // a missing key is nil: empty
		}
		if !slices.ContainsFunc(row, func(f field) bool { return f.key == "replicates" }) {
			f = append(f, field{"replicates", int64(replicates)})
		}
		out[i] = f
	}
	return ranBy(out, seed, scenario)
}

// paramKeys are decl.Params[fleet.Config]' keys as settingsObject keys them.
func paramKeys() []string {
	return mapped(decl.Params[fleet.Config](), func(p decl.Param[fleet.Config]) string {
		return strings.ReplaceAll(p.Key, "-", "_")
	})
}

// withSettingsObject appends to each row a params object of its run's settings.
func withSettingsObject(rows [][]field, cfgs []fleet.Config) ([][]field, error) {
	if len(cfgs) != len(rows) {
		return rows, nil
	}
	return withMore(rows, func(i int) ([]field, error) {
		o, err := FleetParams(cfgs[i])
		return []field{{"params", o}}, err
	})
}

// fleetColumns are the fleet's columns, a run's summary each row.
var fleetColumns = columns[fleetdata.RunRow]{
	labelColumn("Run", "run", func(s fleetdata.RunRow) string { return s.Run }),
	rawColumn(func(s fleetdata.RunRow) []field { return []field{{"replicates", int64(s.Replicates)}} }),
	estimateColumn("Requests", "requests", wholeCount, fleetdata.RunFigures()),
	estimateColumn("Succeeded", "succeeded", requestShare, fleetdata.RunFigures()),
	estimateColumn("Goodput /s", "goodput", expectedCount, fleetdata.RunFigures()),
	estimateColumn("Calls per request", "amplification", perJob, fleetdata.RunFigures()),
	estimateColumn("Timeouts", "timeouts", expectedCount, fleetdata.RunFigures()),
	estimateColumn("Conflicts", "conflicts", expectedCount, fleetdata.RunFigures()),
	estimateColumn("Duplicates", "duplicates", expectedCount, fleetdata.RunFigures()),
	estimateColumn("", "local_rejected", expectedCount, fleetdata.RunFigures()),
	estimateColumn("", "hedges", expectedCount, fleetdata.RunFigures()),
	quantilesColumn("Latency p50 / p95 / p99", "latency", fleetdata.RunFigures()),
	estimateColumn("Peak in progress", "peak_in_progress", expectedCount, fleetdata.RunFigures()),
	{header: "Recovered", text: func(s fleetdata.RunRow) string {
		if j := recoveryJudged(s); j != "yes" {
			return j
		}
		return shareText(s.RecoveredShare)
	}, fields: func(s fleetdata.RunRow) []field {
		sh := s.RecoveredShare
		return append(append([]field{{"recovery_judged", recoveryJudged(s)}}, estimateFields("recovered_share", sh)...),
			field{"recovered_replicates", sh.Count()}, field{"judged_replicates", sh.N})
	}},
	{header: "Recovery median [p25, p75]", text: func(s fleetdata.RunRow) string {
		if recoveryJudged(s) != "yes" {
			return "-"
		}
		return quartilesText(s.RecoveryTime)
	}, fields: func(s fleetdata.RunRow) []field {
		q := s.RecoveryTime
		return append(estimateFields("recovery_seconds", s.Recovery), field{"recovery_p25_seconds", reportjson.NaNNull(q.P25)},
			field{"recovery_median_seconds", reportjson.NaNNull(q.Median)}, field{"recovery_p75_seconds", reportjson.NaNNull(q.P75)})
	}},
}

// recoveryJudged says whether the run's recovery was judged: "yes", "no trigger", "too short".
func recoveryJudged(s fleetdata.RunRow) string {
	switch {
	case !s.Trigger:
		return "no trigger"
	case s.RecoveredShare.N == 0:
		return "too short"
	}
	return "yes"
}

// fleetSeries are the figures of a fleet run's second, in csv and json's order.
var fleetSeries = []seriesColumn[fleetdata.Point]{
	figureSeries("starts", "new requests", fleetdata.PointFigures()),
	figureSeries("successes", "successes", fleetdata.PointFigures()),
	figureSeries("retries_decided", "retries decided", fleetdata.PointFigures()),
	figureSeries("retries_sent", "retries sent", fleetdata.PointFigures()),
	figureSeries("timeouts", "timeouts", fleetdata.PointFigures()),
	figureSeries("conflicts", "conflicts (key in use)", fleetdata.PointFigures()),
	figureSeries("in_progress", "", fleetdata.PointFigures()),
}

// pointFields is a fleet series point for csv and json.
func pointFields(p fleetdata.Point) []field {
	return append([]field{{"run", p.Run}, {"t", int64(p.T)}}, seriesFields(fleetSeries, p)...)
}

// quartilesText is a recovery time's quartiles for people: "4 s [0, 12]", or "never".
func quartilesText(q stats.Quartiles) string {
	g := func(x float64) string {
		if math.IsNaN(x) {
			return "never"
		}
		return strconv.FormatFloat(math.Round(1000*x)/1000, 'f', -1, 64) // 3 s, not 3.000
	}
	if math.IsNaN(q.Median) {
		return "never"
	}
	return g(q.Median) + " s [" + g(q.P25) + ", " + g(q.P75) + "]"
}

// shareText is a share of replicates for people, its bounds whole percentages rounded outwards: "3 of 10 [5%, 60%]".
func shareText(sh schema.Estimate) string {
	return fmt.Sprintf("%s of %s [%s%%, %s%%]", human.Group(sh.Count()), human.Group(sh.N),
		strconv.FormatFloat(math.Floor(100*sh.Lo), 'f', 0, 64), strconv.FormatFloat(math.Ceil(100*sh.Hi), 'f', 0, 64))
}

// recoveryCaption says what the recovery columns are.
const recoveryCaption = "Recovered: replicates judged whose goodput came back for good, with the share's 95% Wilson score interval; " +
	"recovery: seconds after the load settled, the Kaplan-Meier median and quartiles over the replicates judged, " +
	"one still down censored at its run's end (never: fewer than that share recovered)."

// fleetCaption is recoveryCaption when some row's run has a trigger, else "".
func fleetCaption(rows []fleetdata.RunRow) string {
	if slices.ContainsFunc(rows, func(s fleetdata.RunRow) bool { return s.Trigger }) {
		return recoveryCaption
	}
	return ""
}

// PlotFleet draws each run's series in a panel of its own, on one time axis and y scale.
func PlotFleet(w io.Writer, title string, runs [][]fleetdata.Point, cfgs []fleet.Config, ext string) error {
	return encodeWhole(w, ext)(newFleetFigure(title, runs, cfgs))
}

// fleetPanelHeight is the height of one run's panel.
const fleetPanelHeight = 8 * vg.Centimeter

// fleetColours are the palette indexes of fleetSeries' drawn figures.
var fleetColours = []int{0, 2, 3, 6, 1, 5, 4, 7}

// fleetLines are the series of a run's panel, line k drawn in fleetColours[k]; conflicts only when keys is on.
func fleetLines(keys bool) []seriesColumn[fleetdata.Point] {
	var lines []seriesColumn[fleetdata.Point]
	for _, s := range fleetSeries {
		if s.legend != "" && (keys || s.key != "conflicts") {
			lines = append(lines, s)
		}
	}
	return lines
}

func newFleetFigure(title string, runs [][]fleetdata.Point, cfgs []fleet.Config) (stack, error) {
	if len(runs) == 0 || len(runs) != len(cfgs) {
		return stack{}, fmt.Errorf("nothing to plot")
	}
	end, top := 0.0, 0.0
	xys := make([][]plotter.XYs, len(runs)) // run i's line k
	for i, c := range cfgs {
		end = math.Max(end, c.Duration.Seconds())
		for j := 0; j <= 400; j++ {
			top = math.Max(top, c.Load.At(c.Duration.Seconds()*float64(j)/400))
		}
		for _, l := range fleetLines(c.Client.Keys != schema.NoKeys) {
			xy := make(plotter.XYs, len(runs[i]))
			for j, pt := range runs[i] {
				xy[j] = plotter.XY{X: float64(pt.T) + 0.5, Y: l.get(pt)}
				top = math.Max(top, xy[j].Y)
			}
			xys[i] = append(xys[i], xy)
		}
	}
	common, own := splitSettings(cfgs)
	heading := title
	if common != "" {
		heading += "\n" + wrapSettings("every run: "+common, 90)
	}
	var panels []*plot.Plot
	for i := range runs {
		title := cfgs[i].Name
		if own[i] != "" {
			title += "\n" + wrapSettings(own[i], 90)
		}
		p := timePanel(title, "per second", 10)
		load, err := loadArea(cfgs[i].Load, cfgs[i].Duration.Seconds())
		if err != nil {
			return stack{}, err
		}
		p.Add(load)
		p.Legend.Add("load shape (offered rate)", load)
		lines := fleetLines(cfgs[i].Client.Keys != schema.NoKeys)
		for k, l := range lines {
			line, err := plotter.NewLine(xys[i][k])
			if err != nil {
				return stack{}, fmt.Errorf("%s: %w", l.legend, err)
			}
			// A series equal to later ones is drawn wider under them, as a sweep's plot does.
			same, later := twins(xys[i], k, slices.Equal[plotter.XYs])
			name := l.legend
			if same >= 0 {
				name += " (same as " + lines[same].legend + ")"
			}
			line.Color = lineColour(fleetColours[k])
			line.Dashes = plotutil.Dashes(k)
			line.Width = vg.Points(1.2 + 1.5*float64(later))
			p.Add(line)
			p.Legend.Add(name, line)
		}
		// The same time axis and y scale in every panel, so runs compare by eye.
		p.X.Min, p.X.Max = 0, end
		p.Y.Min, p.Y.Max = 0, top*1.05
		panels = append(panels, p)
	}
	return newStack(15*vg.Centimeter, fleetPanelHeight, heading, panels...), nil
}

// timePanel is a panel of figures a second against time, over a grid.
func timePanel(title, y string, legend float64) *plot.Plot {
	p := newPanel(title, "t (s)", y, legend)
	p.X.Tick.Marker = timeTicks{}
	p.Y.Tick.Marker = unitTicks{}
	p.Add(plotter.NewGrid())
	return p
}

// newPanel is a panel titled title in 10 pt, its axes labelled x and y, its legend in legend pt.
func newPanel(title, x, y string, legend float64) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.X.Label.Text, p.Y.Label.Text = x, y
	p.Legend.TextStyle.Font.Size = vg.Points(legend)
	return p
}

// yScale gives p a log y axis when logY, else a linear one, ticks in unit;
// floor is the log axis's foot, the decade at or below values' least positive one.
func yScale(p *plot.Plot, logY bool, values []float64, unit string) (floor float64) {
	if !logY {
		p.Y.Tick.Marker = unitTicks{unit}
		return 0
	}
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = logTicks{unit}
	return decadeFloor(values)
}

// timeTicks label a time axis at timeStep, with an unlabelled tick halfway between.
type timeTicks struct{}

// Ticks implements plot.Ticker.
func (timeTicks) Ticks(lo, hi float64) []plot.Tick {
	step := timeStep(hi - lo)
	var ticks []plot.Tick
	for i := math.Ceil(lo / (step / 2)); i*step/2 <= hi+1e-9; i++ {
		t := plot.Tick{Value: i * step / 2}
		if int(i)%2 == 0 {
			t.Label = strconv.FormatFloat(t.Value, 'f', -1, 64)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// timeStep is the least of 1, 2, 5, 10, 20, 30, 60 s and on that labels a span at most ten times.
func timeStep(span float64) float64 {
	steps := []float64{1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 1800, 3600}
	for _, s := range steps {
		if span/s <= 10 {
			return s
		}
	}
	return steps[len(steps)-1]
}

// loadArea is the load shape's rate over [0, duration] as a grey area.
func loadArea(s fleet.Shape, duration float64) (*plotter.Polygon, error) {
	const n = 400
	xy := plotter.XYs{{X: 0, Y: 0}}
	for i := 0; i <= n; i++ {
		t := duration * float64(i) / n
		xy = append(xy, plotter.XY{X: t, Y: s.At(t)})
		if s.Kind == fleet.SpikeLoad { // the step's edges, exactly
			for _, e := range []float64{s.From.Seconds(), s.To.Seconds()} {
				if next := duration * float64(i+1) / n; e > t && e < next {
					xy = append(xy, plotter.XY{X: e, Y: s.At(t)}, plotter.XY{X: e, Y: s.At(e)})
				}
			}
		}
	}
	xy = append(xy, plotter.XY{X: duration, Y: 0})
	poly, err := plotter.NewPolygon(xy)
	if err != nil {
		return nil, err
	}
	poly.Color = shade
	poly.LineStyle.Width = 0
	return poly, nil
}

// shade is the grey a plot's trigger is shaded in.
var shade = color.Gray{Y: 0xdd}
