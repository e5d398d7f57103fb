package render

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetdata"
)

// The graph plot's solid line is the calls that reached the service
// (GraphPoint.Calls: hedges and refused calls included), not the requests
// and retries its callers sent: with 12 calls in a second where 1 request
// and 1 retry were sent, the panel's y axis reaches 12 (plus its 5%
// headroom), not 2.
func TestGraphPlotDrawsCalls(t *testing.T) {
	g := fleet.Graph{Name: "g", Duration: 2 * time.Second, Services: []fleet.Node{{Name: "db"}}}
	pt := func(sec int, calls float64) fleetdata.GraphPoint {
		return fleetdata.GraphPoint{Point: fleetdata.Point{Run: "g", T: sec, Starts: 1, RetriesSent: 1, Successes: 1}, Service: "db", Calls: calls}
	}
	f, err := newGraphFigure("t", []fleet.Graph{g}, []fleetdata.GraphPoint{pt(0, 12), pt(1, 5)})
	if err != nil {
		t.Fatal(err)
	}
	top := 12.0
	if got, want := f.panels[0].Y.Max, top*1.05; got != want {
		t.Errorf("y axis to %v; want %v, the calls' top", got, want)
	}
}

// TestGraphTickLabels is issue 35 item 3: a graph's y axes were labelled
// in gonum's default form, "0.00" and "2500.00" on one panel beside "300"
// on the next. With 2,600 calls a second at db the labels are 0 and 2500,
// whole, as on a panel of 12.
func TestGraphTickLabels(t *testing.T) {
	g := fleet.Graph{Name: "g", Duration: 2 * time.Second, Services: []fleet.Node{{Name: "db"}}}
	pts := []fleetdata.GraphPoint{
		{Point: fleetdata.Point{Run: "g", T: 0}, Service: "db", Calls: 2600},
		{Point: fleetdata.Point{Run: "g", T: 1}, Service: "db", Calls: 0},
	}
	var buf bytes.Buffer
	if err := encodeWhole(&buf, ".svg")(newGraphFigure("t", []fleet.Graph{g}, pts)); err != nil {
		t.Fatal(err)
	}
	texts := svgTextsOf(t, buf.Bytes())
	for _, want := range []string{"0", "2500"} {
		if !contains(texts, want) {
			t.Errorf("no tick labelled %q; the picture says %q", want, texts)
		}
	}
	for _, s := range texts {
		if strings.HasSuffix(s, ".00") {
			t.Errorf("a tick labelled %q; want it whole", s)
		}
	}
}

// A graph's settings, as json's params write them, hold deadlines only
// where a file may give it: a graph with calls (a scenario file refuses
// the key in a graph without).
func TestGraphSettingsDeadlinesWhereRead(t *testing.T) {
	leaf := fleet.Graph{Name: "g", Services: []fleet.Node{{Name: "a"}, {Name: "b"}}}
	called := fleet.Graph{Name: "g", Services: []fleet.Node{{Name: "a", Calls: []fleet.Call{{To: "b"}}}, {Name: "b"}}}
	for _, tc := range []struct {
		g    fleet.Graph
		want bool
	}{{leaf, false}, {called, true}} {
		has := false
		for _, f := range graphSettings(tc.g) {
			has = has || f.key == "deadlines"
		}
		if has != tc.want {
			t.Errorf("%d services with calls: deadlines written %v; want %v", len(tc.g.Services[0].Calls), has, tc.want)
		}
	}
}
