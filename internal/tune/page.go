package tune

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/schema"
)

// report is the result as the page and the markdown write it.
func (r Result) report(kind string) render.TuneReport {
	lines := r.answerLines()
	out := render.TuneReport{Headline: "retrysim tune " + kind + ": " + strings.TrimSuffix(lines[0], ":"), Answer: lines[1:]}
	for _, a := range r.Search.Axes {
		var vs []string
		for _, v := range a.Values {
			vs = append(vs, fmt.Sprint(a.Write(v)))
		}
		out.Params = append(out.Params, "searched: "+a.Path+" = "+strings.Join(vs, ", "))
	}
	out.Params = append(out.Params, r.objectiveName())
	for _, q := range r.Search.Require {
		out.Params = append(out.Params, "required: "+q.String())
	}
	out.Header, out.Rows = r.table()
	out.Settings = len(r.Search.Axes)
	x := r.xAxis()
	if r.Search.objectiveAxis() < 0 {
		pn := r.panel(x, r.Search.Objective, func(c Candidate) schema.Estimate { return c.Objective })
		pn.Bands = r.ruledOutBands(x)
		if len(pn.Bands) > 0 {
			var at []string
			for _, b := range pn.Bands {
				a := r.Search.Axes[x]
				text := func(v float64) string {
					if a.Duration {
						return human.Seconds(v)
					}
					return strconv.FormatFloat(v, 'g', -1, 64)
				}
				at = append(at, fmt.Sprintf("%s from %s to %s", a.Path, text(b[0]), text(b[1])))
			}
			pn.Note = "the objective's picture shades where every candidate fails a requirement: " + strings.Join(at, ", ")
		}
		out.Panels = append(out.Panels, pn)
	}
	for k, q := range r.Search.Require {
		pn := r.panel(x, q.Metric, func(c Candidate) schema.Estimate { return c.Judged[k].Estimate })
		pn.Title = fmt.Sprintf("%s against %s, 95%% intervals: the requirement %s", q.Metric, r.Search.Axes[x].Path, q)
		pn.Bound, pn.Shade = q.Value, "on"
		switch q.Op {
		case "<=", "<":
			pn.Shade = "above"
		case ">=", ">":
			pn.Shade = "below"
		}
		if pn.Shade != "on" {
			pn.Note = fmt.Sprintf("%s's picture shades %s %s %g, where it fails", q, q.Metric, pn.Shade, q.Value)
		}
		out.Panels = append(out.Panels, pn)
	}
	return out
}

// xAxis is the setting the pictures draw across: the first searched over
// more than one number, else over more than one value.
func (r Result) xAxis() int {
	axes := r.Search.Axes
	if i := slices.IndexFunc(axes, func(a Axis) bool { return len(a.Values) > 1 && a.Choices == nil }); i >= 0 {
		return i
	}
	return max(0, slices.IndexFunc(axes, func(a Axis) bool { return len(a.Values) > 1 }))
}

// panel is est of every candidate on the grid against axis x, a line a value
// of the other settings, the best ringed.
func (r Result) panel(x int, y string, est func(Candidate) schema.Estimate) render.TunePanel {
	a := r.Search.Axes[x]
	pn := render.TunePanel{Title: fmt.Sprintf("%s against %s, 95%% intervals", y, a.Path), X: a.Path, Y: y, XValues: a.Values}
	for _, v := range a.Values {
		pn.Ticks = append(pn.Ticks, fmt.Sprint(a.Write(v)))
	}
	at := map[string]int{} // a series' index by its label
	for i, c := range r.Candidates {
		if c.offGrid || c.Batches == 0 {
			continue
		}
		label := r.settingsText(c, x)
		if label == "" {
			label = "the candidates"
		}
		k, ok := at[label]
		if !ok {
			k, at[label] = len(pn.Series), len(pn.Series)
			pn.Series = append(pn.Series, render.TuneSeries{Label: label})
		}
		e := est(c)
		s := &pn.Series[k]
		s.X, s.V, s.Lo, s.Hi = append(s.X, c.Point[x]), append(s.V, e.Value), append(s.Lo, e.Lo), append(s.Hi, e.Hi)
		if i == r.Best {
			pn.Best = &[2]float64{c.Point[x], e.Value}
		}
	}
	return pn
}

// ruledOutBands are the spans of axis x where every candidate fails, each
// reaching halfway to the next value (as far on the other side at an end).
func (r Result) ruledOutBands(x int) [][2]float64 {
	vs := slices.Clone(r.Search.Axes[x].Values)
	slices.Sort(vs)
	vs = slices.Compact(vs)
	out := func(v float64) bool {
		seen := false
		for _, c := range r.Candidates {
			if !c.offGrid && c.Point[x] == v {
				if c.Status != "fails" {
					return false
				}
				seen = true
			}
		}
		return seen
	}
	var bands [][2]float64
	for i, v := range vs {
		if !out(v) {
			continue
		}
		half := func(j int) float64 { // 0 past an end: the values differ
			if j < 0 || j >= len(vs) {
				return 0
			}
			return math.Abs(vs[j]-v) / 2
		}
		before, after := half(i-1), half(i+1)
		left, right := cmp.Or(before, after, 0.5), cmp.Or(after, before, 0.5) // 0.5 about a single value
		if n := len(bands); n > 0 && bands[n-1][1] == v-left {
			bands[n-1][1] = v + right
			continue
		}
		bands = append(bands, [2]float64{v - left, v + right})
	}
	return bands
}
