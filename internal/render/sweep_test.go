package render

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/internal/reportjson"
	"github.com/retrysim/retrysim/internal/stats"
)

// Every sweep title names the engine: skip and plain agree in distribution,
// not draw for draw, so the same seed gives other numbers under each.
func TestSweepTitlesNameTheEngine(t *testing.T) {
	m, _ := stats.LookupMetric("failed_rate")
	s := stats.Sweep{Scenario: "signup", RNG: "pcg", Seed: 1, Engine: "skip", Metric: m, Swept: []int{0}, Strategies: []string{"step-nokey"}}
	for _, x := range []float64{0, 0.01} {
		s.Rows = append(s.Rows, stats.SweepRow{Point: stats.Point{x, 0.005, 3, 100}, ID: "step-nokey", Core: stats.Core{Jobs: 100, Failed: 1}})
	}
	const want = "pcg, seed 1, skip engine"
	var pivot bytes.Buffer
	if err := lookup(t, SweepDoc, "table").Sweep(&pivot, s, PlotOptions{}); err != nil {
		t.Fatal(err)
	}
	if title := strings.SplitN(pivot.String(), "\n", 2)[0]; !strings.HasSuffix(title, want) {
		t.Errorf("pivot title %q; want it to end %q", title, want)
	}
	heat := s
	heat.Swept = []int{0, 1} // two parameters: a heat map a strategy
	for what, sw := range map[string]stats.Sweep{"line": s, "heat map": heat} {
		if texts := svgTexts(t, sw, PlotOptions{}); !strings.Contains(strings.Join(texts, "\n"), want) {
			t.Errorf("%s plot's texts %q; want one to name %q", what, texts, want)
		}
	}
}

// writeSweepJSON streams its rows; json.Encoder over the whole value is the
// reference for the bytes it must write.
func TestSweepJSONMatchesEncoder(t *testing.T) {
	for _, n := range []int{0, 1, 3} {
		s := stats.Sweep{Scenario: "signup", RNG: "pcg", Seed: 7, Engine: "skip", Swept: []int{0}, Metric: stats.Metrics()[1], Strategies: []string{"a"}}
		for i := range n {
			s.Rows = append(s.Rows, stats.SweepRow{Point: stats.Point{float64(i) / 10, 0.005, 3, 100}, ID: "a", Label: "A <&>",
				Core: stats.Core{Jobs: 100, Failed: int64(i), Calls: 1000 + int64(i)}})
		}
		var got bytes.Buffer
		if err := writeSweepJSON(&got, s); err != nil {
			t.Fatal(err)
		}
		out := struct {
			stats.Sweep
			Swept  []string          `json:"swept"`
			Metric string            `json:"metric"`
			Rows   []json.RawMessage `json:"rows"`
		}{Sweep: s, Swept: []string{"p_fail"}, Metric: s.Metric.Name}
		for i := range s.Rows {
			o, err := object(sweepFields(s, &s.Rows[i], new(stats.Row)))
			if err != nil {
				t.Fatal(err)
			}
			out.Rows = append(out.Rows, o)
		}
		var want bytes.Buffer
		if err := reportjson.WriteIndented(&want, out); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%d rows: writeSweepJSON =\n%s\nwant\n%s", n, got.String(), want.String())
		}
	}
}

// A time metric's cells may be no number: NaN where no job failed, +Inf past
// the histogram. The pivot, the line plot and the heat maps draw them
// without a panic (gonum's palette panicked on NaN), and the pivot says "-".
func TestSweepTimeMetricWithoutJobs(t *testing.T) {
	m, err := stats.LookupSweepMetric("failed_completion_p99", nil, true)
	if err != nil {
		t.Fatal(err)
	}
	s := stats.Sweep{Scenario: "signup", RNG: "pcg", Seed: 1, Engine: "plain", Metric: m, Strategies: []string{"a"},
		Axes: []stats.Axis{{Name: "queue.ttl", Label: "queue.ttl", Duration: true}, {Name: "queue.lease", Label: "queue.lease", Duration: true}}}
	for _, pt := range [][]float64{{3600, 1}, {3600, 2}, {7200, 1}, {7200, 2}} {
		row := stats.SweepRow{Point: pt, ID: "a"}
		c := stats.Counters{Jobs: 10}
		if pt[0] == 7200 && pt[1] == 2 { // every failed job past the histogram's range
			c.Failed = 5
			for range 5 {
				c.FailedCompletion.AddSeconds(math.Inf(1))
			}
		}
		row.SetCounters(&c)
		s.Rows = append(s.Rows, row)
	}
	for _, swept := range [][]int{{0}, {0, 1}} {
		s.Swept = swept
		var b bytes.Buffer
		if err := PlotSweep(&b, s, ".svg", PlotOptions{}); err != nil {
			t.Errorf("PlotSweep of %d swept: %v", len(swept), err)
		}
	}
	var b bytes.Buffer
	if err := writePivot(&b, s, tableStyle{}); err != nil {
		t.Fatal(err)
	}
	// Past the range reads as more than its top, 2^23 s = 8,388,608 s.
	for _, want := range []string{"│        1h │          1s │             - │\n", "│        2h │          2s │ > 8,388,608 s │\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("pivot\n%s\nwant a line %q", b.String(), want)
		}
	}
}
