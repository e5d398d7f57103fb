// Package metastable asks whether a fleet model is metastable: the map of its recovery over
// a trigger's size and duration and the base load, and multilevel splitting for a rare
// event of a Memoryless run. It runs the fleet engine; it is neither it nor internal/chain.
package metastable

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fieldpath"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/fleetrun"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/schema"
)

// Limits on a map, checked by Map.Check before any work.
const (
	// MaxMapCells bounds a map's cells (policies x lengths x heights x rates).
	MaxMapCells = 10_000
	// MaxMapAxis bounds the values of one axis.
	MaxMapAxis = 100
)

// MapPolicy is a policy a map is drawn for: a name and its client's backoff.
type MapPolicy struct {
	Name    string
	Backoff backoff.Schedule
}

// MapPolicies are brooker-collapse's no_backoff and backoff_and_jitter, in that order.
func MapPolicies() []MapPolicy {
	return []MapPolicy{
		{Name: "no_backoff"},
		{Name: "backoff_and_jitter", Backoff: backoff.Schedule{Kind: backoff.FullJitter, Base: 20 * time.Second}},
	}
}

// Map is a grid of runs, one a cell, over a trigger's size and duration and the base load,
// for one or more policies.
type Map struct {
	// Base is every cell's model but for the backoff, load and outage.
	Base fleet.Config
	// Outage makes the trigger an outage of Base.Outage.Mode for each of Lengths (Heights
	// unused); otherwise a spike to each of Heights for each of Lengths, from From.
	Outage bool
	// Rates are the base loads, Heights the spike's rates, Lengths the trigger's durations.
	Rates, Heights []float64
	Lengths        []time.Duration
	Policies       []MapPolicy
	// From is when the trigger starts, After how long each run goes on after it ends.
	From, After time.Duration
}

// CollapseMap is the default map: brooker-collapse's server and client without backoff, a
// spike at 20 s to 60 to 150 a second for 1 to 10 s over base loads of 10 to 50, each run
// 120 s past the spike: 100 cells.
func CollapseMap() Map {
	return Map{
		Base: fleet.Config{
			Server: fleet.Server{Kind: fleet.LatencyServer, Base: time.Second, Slope: 10 * time.Millisecond},
			Client: fleet.Client{Clients: 1, Timeout: 3 * time.Second, Attempts: 3},
			Net:    100 * time.Millisecond,
		},
		Rates:    []float64{10, 20, 30, 40, 50},
		Heights:  []float64{60, 80, 100, 120, 150},
		Lengths:  []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second},
		Policies: MapPolicies()[:1],
		From:     20 * time.Second,
		After:    120 * time.Second,
	}
}

// Cells are the map's runs, policies outermost, each named "policy length height rate".
func (m Map) Cells() []fleet.Config {
	var cells []fleet.Config
	for _, p := range m.Policies {
		for _, l := range m.Lengths {
			for _, h := range m.Heights {
				for _, r := range m.Rates {
					c := m.Base
					c.Client.Backoff = p.Backoff
					c.Duration = m.From + l + m.After
					if m.Outage {
						c.Load = fleet.Shape{Kind: fleet.ConstantLoad, Rate: r}
						c.Outage.From, c.Outage.To = m.From, m.From+l
						c.Name = fmt.Sprintf("%s outage %gs rate %g", p.Name, l.Seconds(), r)
					} else {
						c.Load = fleet.Shape{Kind: fleet.SpikeLoad, Rate: r, Peak: h, From: m.From, To: m.From + l}
						c.Outage = fleet.Outage{}
						c.Name = fmt.Sprintf("%s spike %gs to %g rate %g", p.Name, l.Seconds(), h, r)
					}
					cells = append(cells, c)
				}
			}
		}
	}
	return cells
}

// Check refuses a map with an empty or too long axis, too many cells, a run too short to
// judge, or a cell fleet.Config.Check refuses, as a *FieldError naming the path (a cell's
// own setting under cells[NAME]).
func (m Map) Check() error {
	axes := []struct {
		path string
		n    int
	}{{"policies", len(m.Policies)}, {"lengths", len(m.Lengths)}, {"heights", len(m.Heights)}, {"rates", len(m.Rates)}}
	cells := 1
	var paths []string
	for _, a := range axes {
		if a.n < 1 || a.n > MaxMapAxis {
			return &schema.FieldError{Field: a.path, Msg: fmt.Sprintf("%d values; want 1 to %d", a.n, MaxMapAxis)}
		}
		cells *= a.n
		paths = append(paths, a.path)
	}
	if cells > MaxMapCells {
		return &schema.FieldError{Field: strings.Join(paths, " x "), Fields: paths, Msg: fmt.Sprintf("%d cells; at most %d", cells, MaxMapCells)}
	}
	if m.After < fleetdata.RecoveryWindow*time.Second {
		return &schema.FieldError{Field: "after", Msg: fmt.Sprintf("%g s; want at least %d s, one recovery window", m.After.Seconds(), fleetdata.RecoveryWindow)}
	}
	if m.From < 0 {
		return &schema.FieldError{Field: "from", Msg: fmt.Sprintf("%g s; want 0 or more", m.From.Seconds())}
	}
	for _, l := range m.Lengths {
		if l <= 0 {
			return &schema.FieldError{Field: "lengths", Msg: fmt.Sprintf("%g s; want above 0", l.Seconds())}
		}
	}
	for _, c := range m.Cells() {
		if err := c.Check(); err != nil {
			return fieldpath.Within("cells["+c.Name+"]", err)
		}
	}
	for _, h := range m.Heights {
		if !m.Outage && slices.Contains(m.Rates, h) {
			return &schema.FieldError{Field: "heights", Msg: fmt.Sprintf("%g is also a base rate: a spike to the base rate is no trigger, and its cell would judge nothing", h)}
		}
	}
	return nil
}

// MapCell is one cell's outcome: its run and each judged replicate's recovery.
type MapCell struct {
	Config       fleet.Config
	Observations []stats.Observation
}

// Share is the share of the cell's judged replicates that recovered (95% Wilson interval).
func (c MapCell) Share() schema.Estimate {
	k := 0
	for _, o := range c.Observations {
		if o.Recovered {
			k++
		}
	}
	return stats.Share(k, len(c.Observations))
}

// RecoveryTime is the cell's Kaplan-Meier quartiles of the time to recover.
func (c MapCell) RecoveryTime() stats.Quartiles { return stats.KaplanMeier(c.Observations).Quartiles() }

// RunMap runs the cells of cfgs as fleet.Run does, keeping only each cell's recoveries.
func RunMap(ctx context.Context, cfgs []fleet.Config, opt fleet.Options) ([][]stats.Observation, error) {
	res, err := fleet.Run(ctx, cfgs, opt)
	if err != nil {
		return nil, err
	}
	out := make([][]stats.Observation, len(res))
	for i, r := range res {
		if out[i] = fleetrun.Fleet().Observations(r); out[i] == nil {
			out[i] = []stats.Observation{}
		}
	}
	return out, nil
}
