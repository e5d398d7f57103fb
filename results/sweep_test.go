package results

import (
	"bytes"
	"strings"
	"testing"
)

// Every sweep title names the engine: skip and plain agree in distribution,
// not draw for draw, so the same seed gives other numbers under each.
func TestSweepTitlesNameTheEngine(t *testing.T) {
	m, _ := LookupMetric("failed_rate")
	s := Sweep{Scenario: "signup", RNG: "pcg", Seed: 1, Engine: "skip", Metric: m, Swept: []int{0}, Strategies: []string{"step-nokey"}}
	for _, x := range []float64{0, 0.01} {
		s.Rows = append(s.Rows, SweepRow{Point: Point{x, 0.005, 3, 100}, Row: Row{ID: "step-nokey", Counters: Counters{Jobs: 100, Failed: 1}}})
	}
	const want = "pcg, seed 1, skip engine"
	var pivot bytes.Buffer
	if err := WriteSweep(&pivot, s, "table"); err != nil {
		t.Fatal(err)
	}
	if title := strings.SplitN(pivot.String(), "\n", 2)[0]; !strings.HasSuffix(title, want) {
		t.Errorf("pivot title %q; want it to end %q", title, want)
	}
	heat := s
	heat.Swept = []int{0, 1} // two parameters: a heat map a strategy
	for what, sw := range map[string]Sweep{"line": s, "heat map": heat} {
		if texts := svgTexts(t, sw, PlotOptions{}); !strings.Contains(strings.Join(texts, "\n"), want) {
			t.Errorf("%s plot's texts %q; want one to name %q", what, texts, want)
		}
	}
}
