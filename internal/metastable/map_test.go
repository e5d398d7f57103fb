package metastable

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/fleetrun"
	"github.com/retrysim/retrysim/schema"
)

// TestCollapseMapCells: the default map is 100 cells, policies outermost,
// then lengths, heights and rates, each a spike from 20 s on Brooker's
// collapse server, 120 s past the spike.
func TestCollapseMapCells(t *testing.T) {
	m := CollapseMap()
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	cells := m.Cells()
	if len(cells) != 100 {
		t.Fatalf("%d cells; want 100", len(cells))
	}
	c := cells[1*25+2*5+3] // length 2 s, height 100, rate 40
	if c.Load != (fleet.Shape{Kind: fleet.SpikeLoad, Rate: 40, Peak: 100, From: 20 * time.Second, To: 22 * time.Second}) || c.Duration != 142*time.Second ||
		c.Name != "no_backoff spike 2s to 100 rate 40" || c.Server.Slope != 10*time.Millisecond || c.Client.Timeout != 3*time.Second {
		t.Errorf("cell 38 = %+v; want a spike to 100 from 20 to 22 s at rate 40, 142 s", c)
	}
	m.After = 5 * time.Second
	if err := m.Check(); err == nil {
		t.Errorf("After 5 s: Check passed; want an error")
	}
}

// TestMapCheckNamesPaths: each refusal of Map.Check is a *FieldError that
// names the map's field by its path (the axes together for too many
// cells), and a cell's own refusal under cells[NAME].
func TestMapCheckNamesPaths(t *testing.T) {
	many := make([]float64, MaxMapAxis)
	for i := range many {
		many[i] = float64(i + 1)
	}
	for _, tt := range []struct {
		name   string
		change func(m *Map)
		field  string
		fields []string
		msg    string
	}{
		{"no rates", func(m *Map) { m.Rates = nil }, "rates", nil, "0 values; want 1 to 100"},
		{"101 heights", func(m *Map) { m.Heights = append(many, 1) }, "heights", nil, "101 values; want 1 to 100"},
		{"no policies", func(m *Map) { m.Policies = nil }, "policies", nil, "0 values; want 1 to 100"},
		{"too many cells", func(m *Map) { m.Rates, m.Heights = many, many },
			"policies x lengths x heights x rates", []string{"policies", "lengths", "heights", "rates"}, "40000 cells; at most 10000"},
		{"short after", func(m *Map) { m.After = 5 * time.Second }, "after", nil, "5 s; want at least 10 s, one recovery window"},
		{"negative from", func(m *Map) { m.From = -time.Second }, "from", nil, "-1 s; want 0 or more"},
		{"zero length", func(m *Map) { m.Lengths = []time.Duration{0} }, "lengths", nil, "0 s; want above 0"},
		{"a spike to the base rate", func(m *Map) { m.Rates, m.Heights = []float64{10, 20}, []float64{60, 20} },
			"heights", nil, "20 is also a base rate: a spike to the base rate is no trigger, and its cell would judge nothing"},
		{"a cell's arrivals", func(m *Map) {
			m.Rates, m.Heights, m.Lengths = []float64{1e6}, []float64{1e6}, []time.Duration{100 * time.Second}
		},
			"cells[no_backoff spike 100s to 1e+06 rate 1e+06].duration", nil, "240 s at up to 1e+06 requests a second is more than 1e+08 requests a replicate"},
	} {
		m := CollapseMap()
		tt.change(&m)
		var fe *schema.FieldError
		if err := m.Check(); !errors.As(err, &fe) || fe.Field != tt.field || !slices.Equal(fe.Fields, tt.fields) || fe.Msg != tt.msg {
			t.Errorf("%s: Check() = %#v; want a *schema.FieldError %s %v: %s", tt.name, err, tt.field, tt.fields, tt.msg)
		}
	}
}

// A fleet that never left health is judged recovered at once, whatever the
// run's length: a spike of a thousandth of a request a second over 2 a
// second, a run 10 s or 10 minutes past it. The evidence is independent of
// the judgement: every request of the replicate succeeded (none failed), so
// no window held a failure to judge by; judged by the second successes
// land in, the answers' lag alone made 13 of 100 such replicates at 10
// minutes "not recovered".
func TestRecoveredAtOnceWhenNeverDown(t *testing.T) {
	for _, after := range []time.Duration{10 * time.Second, 10 * time.Minute} {
		m := CollapseMap()
		m.Rates, m.Heights, m.Lengths, m.After = []float64{2}, []float64{2.001}, []time.Duration{time.Second}, after
		if err := m.Check(); err != nil {
			t.Fatal(err)
		}
		res, err := fleet.Run(context.Background(), m.Cells(), fleet.Options{Replicates: 100, Seed: 1, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		healthy := 0
		for i, r := range fleetrun.Fleet().Replicates(res[0]) {
			if r.Counts.Failed != 0 || r.Counts.Requests != r.Counts.Succeeded {
				continue // not evidence either way
			}
			healthy++
			if r.Verdict != fleetdata.Recovered || r.Recovery != 0 {
				t.Errorf("after %v, replicate %d: every one of %d requests succeeded, judged %v at %g s; want recovered at 0 s", after, i, r.Counts.Requests, r.Verdict, r.Recovery)
			}
		}
		if healthy < 90 {
			t.Errorf("after %v: %d of 100 replicates with every request a success; want most (the case is no trigger)", after, healthy)
		}
	}
}
