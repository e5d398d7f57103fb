package retrysim

import (
	"context"
	"fmt"
	"slices"

	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/internal/sim"
	"github.com/retrysim/retrysim/internal/stats"
)

// shown is how outputs show the sweep's axis called name.
func (s Sweep) shown(name string) (stats.Axis, error) {
	grid, err := s.grid()
	if err != nil {
		return stats.Axis{}, err
	}
	i := slices.IndexFunc(grid, func(a sweepAxis) bool { return a.Name == name })
	if i < 0 {
		return stats.Axis{}, fieldErr(name, "is no axis of the sweep")
	}
	return grid[i].show, nil
}

// value is the value the axis or parameter called name has at a point that does not vary it, in the
// axis's units.
func (s Sweep) value(name string) (float64, error) {
	if i := slices.IndexFunc(s.Axes, func(a Axis) bool { return a.Name == name }); i >= 0 && len(s.Axes[i].Values) == 1 {
		return s.Axes[i].Values[0], nil
	}
	base, _ := s.base()
	sc, q, err := Override(base, s.Experiment.Delivery, s.Settings...)
	if err != nil {
		return 0, err
	}
	switch name {
	case "attempts":
		return float64(s.attempts()), nil
	case "jobs":
		return jobapi.SweepDefault(3), nil
	case "p_fail", "lost_reply":
		var vs []float64
		for _, st := range sc.Steps {
			if name == "p_fail" {
				vs = append(vs, st.PFail)
			} else if st.CanLoseReply {
				vs = append(vs, st.LostReply)
			}
		}
		if len(vs) == 0 || slices.ContainsFunc(vs, func(v float64) bool { return v != vs[0] }) {
			return 0, fieldErr(name, "the scenario's steps have no one value of it")
		}
		return vs[0], nil
	}
	f, steps, queue, err := lookupField(name, sc, true)
	if err != nil {
		return 0, err
	}
	var v any
	switch {
	case queue && q != nil:
		v = f.get(nil, q)
	case !queue && len(steps) == 1:
		v = f.get(&sc.Steps[steps[0]], q)
	default:
		return 0, fieldErr(name, "%s", jobModelMsg)
	}
	if x, ok := number(v); ok {
		return x, nil
	}
	return 0, fmt.Errorf("retrysim: %s is a %T, which no axis takes", name, v)
}

// runSweeps is jobapi.RunSweeps: one pool keeps every worker busy.
func runSweeps(ctx context.Context, ss []Sweep) ([]stats.Sweep, error) {
	plans := make([]plan, len(ss))
	first := make([]int, len(ss)+1) // first[i] is sweep i's first configuration
	var cfgs []sim.Config
	for i, s := range ss {
		p, err := s.plan()
		if err != nil {
			return nil, err
		}
		plans[i], cfgs = p, append(cfgs, p.cfgs...)
		first[i+1] = len(cfgs)
	}
	if len(ss) == 0 {
		return nil, nil
	}
	counters := make([][]stats.Counters, len(cfgs))
	err := sim.RunEach(ctx, cfgs, ss[0].Experiment.Workers, nil, func(c int, cs []stats.Counters) { counters[c] = slices.Clone(cs) })
	if err != nil {
		return nil, err
	}
	out := make([]stats.Sweep, len(ss))
	for i, p := range plans {
		out[i] = p.out
		reps := len(p.cfgs) / len(p.points)
		out[i].Rows = make([]stats.SweepRow, len(p.points)*len(ss[i].Experiment.Strategies))
		for k := range p.points {
			at := first[i] + k*reps
			p.fill(&out[i], k, counters[at:at+reps])
		}
		p.noRepeats(&out[i])
	}
	return out, nil
}
