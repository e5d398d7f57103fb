package render

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetdata"
)

// workersTwoRuns is two runs, a and b, of 1,000 s whose workers are down
// from 100 s to 200 s: 10 arrivals a second in both (the same draws), a
// backlog growing by 10 a second in the outage and gone at once after it,
// completions of 10 a second but for a herd of 5,000 dead-lettered jobs at
// 250 s in run a, no waiting job ever old (the age 0 throughout), and one
// dependency, db, called 10 times a second.
func workersTwoRuns() WorkersReport {
	r := WorkersReport{Title: "retrysim workers: test"}
	for _, run := range []string{"a", "b"} {
		r.Rows = append(r.Rows, fleetdata.WorkersRow{Run: run})
		r.Graphs = append(r.Graphs, fleet.Graph{Name: run, Duration: 1000 * time.Second, Entries: []fleet.Entry{{To: "workers"}},
			Services: []fleet.Node{{Name: "workers", Outage: fleet.Outage{From: 100 * time.Second, To: 200 * time.Second}}, {Name: "db"}}})
		for s := range 1000 {
			p := fleetdata.WorkersPoint{Run: run, T: s, Arrivals: 10, Completions: 10, DepCalls: []float64{10}, DepInProgress: []float64{0.5}}
			if s >= 100 && s < 200 {
				p.Completions, p.Backlog, p.DepCalls[0], p.DepInProgress[0] = 0, float64(10*(s-99)), 0, 0
			}
			if run == "a" && s == 250 {
				p.Dead = 5000
			}
			r.Series = append(r.Series, p)
		}
	}
	return r
}

// TestWorkersPlot is issue 35 item 3: the worker fleet's picture drew every
// figure of a run in one colour and one line style, a spike flattened the
// hour on a linear axis, and panels flat at 0 were drawn. Each figure of a
// panel has a colour of its own and each run a dash pattern, named in the
// legend; coinciding runs are said; the panel with the spike of dead jobs
// (5,000 against 10 a second) has a log axis with 0 at its foot; the age,
// 0 throughout, has no panel; and the time axis shows the outage and its
// aftermath: from 100 s to the herd's last second, 251 s, with a sixth of
// that span (25.2 s) either side, in whole steps of the axis (30 s for a
// span of 201 s): 60 s to 300 s.
func TestWorkersPlot(t *testing.T) {
	var buf bytes.Buffer
	if err := PlotWorkers(&buf, workersTwoRuns(), ".svg"); err != nil {
		t.Fatal(err)
	}
	texts := svgTextsOf(t, buf.Bytes())
	for _, want := range []string{
		"shown: 60 to 300 s of 1,000 s, the outages and their aftermath",
		"jobs a second (per second, log y axis)", "jobs waiting", "db",
		"arrivals (b same as a)", "completions (b same as a)", "dead-lettered", "backlog (b same as a)",
		"retries scheduled: none in any run", "run a", "run b",
		"60", "300", "0", "10", "1000",
	} {
		if !contains(texts, want) {
			t.Errorf("the picture does not say %q; it says %q", want, texts)
		}
	}
	for _, absent := range []string{"oldest waiting job", "age", "600", "a: arrivals"} {
		if contains(texts, absent) {
			t.Errorf("the picture says %q; want it left out", absent)
		}
	}
	if contains(texts, "jobs waiting (log y axis)") {
		t.Error("the backlog, a ramp and no spike, has a log axis; want a linear one")
	}
	svg := buf.String()
	for k := range 3 { // a colour a figure of the first panel
		c := okabeIto[k]
		if want := fmt.Sprintf("stroke:#%02X%02X%02X", c.R, c.G, c.B); !strings.Contains(svg, want) {
			t.Errorf("no line drawn %s (figure %d's colour)", want, k)
		}
	}
	if !strings.Contains(svg, "stroke-dasharray:6,3") {
		t.Error("run b's lines are not dashed")
	}
}

// TestWorkersPlotShadesTheTrigger: a worker fleet's picture shades its
// trigger as a fleet's shades its load's spike, which it did not: the
// outages of workersTwoRuns (100 to 200 s) in each of its three panels, at
// the same place on each time axis (0.01 pt: the panels' y labels differ
// in width by a few thousandths), named in each legend; and a run
// without outages whose jobs come in a spike (120 to 130 s) has the spike
// shaded and named instead.
func TestWorkersPlotShadesTheTrigger(t *testing.T) {
	shaded := regexp.MustCompile(`<path d="M([0-9.]+),[0-9.]+L([0-9.]+),[0-9.]+L[0-9.]+,[0-9.]+L[0-9.]+,[0-9.]+Z" style="fill:#DDDDDD"`)
	spike := workersTwoRuns()
	for i := range spike.Graphs {
		spike.Graphs[i].Services[0].Outage = fleet.Outage{}
		spike.Graphs[i].Entries = []fleet.Entry{{To: "workers", Load: fleet.Shape{Kind: fleet.Spike, Rate: 10, Peak: 50, From: 120 * time.Second, To: 130 * time.Second}}}
	}
	for _, c := range []struct {
		name   string
		r      WorkersReport
		legend string
	}{
		{"outages", workersTwoRuns(), "outages, 100 to 200 s (the trigger)"},
		{"load spike", spike, "load spike, 120 to 130 s (the trigger)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := PlotWorkers(&buf, c.r, ".svg"); err != nil {
				t.Fatal(err)
			}
			if texts := svgTextsOf(t, buf.Bytes()); strings.Count(strings.Join(texts, "\n"), c.legend) != 3 {
				t.Errorf("the legends do not say %q once a panel (3); they say %q", c.legend, texts)
			}
			var bands [][2]float64 // the shaded areas but the legends' boxes (20 pt wide)
			for _, m := range shaded.FindAllStringSubmatch(buf.String(), -1) {
				var x0, x1 float64
				fmt.Sscan(m[1], &x0)
				fmt.Sscan(m[2], &x1)
				if x1-x0 > 20.5 || x1-x0 < 19.5 {
					bands = append(bands, [2]float64{x0, x1})
				}
			}
			if len(bands) != 3 {
				t.Fatalf("shaded areas %v; want one a panel (3)", bands)
			}
			for _, b := range bands[1:] {
				if math.Abs(b[0]-bands[0][0]) > 0.01 || math.Abs(b[1]-bands[0][1]) > 0.01 {
					t.Errorf("shaded areas %v; want them from the same x to the same x (0.01 pt), the panels' time axes being one", bands)
				}
			}
		})
	}
}

// A worker fleet's picture draws the retries a second (issue 39: the
// gallery's pictures show goodput and retries a second): run a's
// redeliveries, 40 a second from 200 s to 220 s as the backlog's jobs fail
// and come back, are a line of the jobs a second panel in a colour of its
// own (the panel's fourth), under its own legend entry; and -series writes
// them as a column, redeliveries, once.
func TestWorkersPlotRedeliveries(t *testing.T) {
	r := workersTwoRuns()
	for i := range r.Series {
		if p := &r.Series[i]; p.Run == "a" && p.T >= 200 && p.T < 220 {
			p.Redeliveries = 40
		}
	}
	var buf bytes.Buffer
	if err := PlotWorkers(&buf, r, ".svg"); err != nil {
		t.Fatal(err)
	}
	texts := svgTextsOf(t, buf.Bytes())
	if !contains(texts, "redeliveries (retries)") || contains(texts, "redeliveries (retries): none in any run") {
		t.Errorf("the legend does not name the redeliveries drawn; it says %q", texts)
	}
	c := okabeIto[3]
	if want := fmt.Sprintf("stroke:#%02X%02X%02X", c.R, c.G, c.B); strings.Count(buf.String(), want) < 2 {
		t.Errorf("the redeliveries are not drawn in %s (a line and its legend's)", want)
	}
	for k := range 3 {
		if okabeIto[k] == c {
			t.Errorf("the redeliveries' colour is figure %d's", k)
		}
	}
	f := workersPointFields(r.Series[210], []string{"db"})
	var keys []string
	for _, x := range f {
		keys = append(keys, x.key)
	}
	if n := strings.Count(" "+strings.Join(keys, " ")+" ", " redeliveries "); n != 1 || f[slices.Index(keys, "redeliveries")].value != 40.0 {
		t.Errorf("series fields %v; want redeliveries once, 40", f)
	}
}
