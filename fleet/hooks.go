package fleet

import (
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/pathtext"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/schema"
)

// init gives internal/fleetrun what is no API (fleetdata.Hooks).
func init() {
	var h fleetdata.Hooks
	h.Replicates = func(r any) []fleetdata.Replicate { return r.(Result).replicates }
	h.GraphReplicates = func(r any) []fleetdata.GraphReplicate { return r.(GraphResult).replicates }
	h.Result = func(c any, reps []fleetdata.Replicate) any { return Result{Config: c.(Config), replicates: reps} }
	h.GraphResult = func(g any, reps []fleetdata.GraphReplicate) any {
		return GraphResult{Graph: g.(Graph), replicates: reps}
	}
	h.Summary = func(r any) fleetdata.RunRow { return r.(Result).summary() }
	h.Totals = func(r any) fleetdata.Totals { return r.(Result).totals() }
	h.Series = func(r any) []fleetdata.Point { return r.(Result).series() }
	h.Observations = func(r any) []stats.Observation { return r.(Result).observations() }
	h.RecoveryCurve = func(r any) stats.Survival { return r.(Result).recoveryCurve() }
	h.DuplicatesPerRequest = func(r any) schema.Estimate { return r.(Result).duplicatesPerRequest() }
	h.Rows = func(r any) []fleetdata.GraphRow { return r.(GraphResult).rows() }
	h.GraphSeries = func(r any) []fleetdata.GraphPoint { return r.(GraphResult).series() }
	h.WorkersRows = func(r any) []fleetdata.WorkersRow { return r.(GraphResult).workersRows() }
	h.WorkersSeries = func(r any) []fleetdata.WorkersPoint { return r.(GraphResult).workersSeries() }
	h.CheckReplicate = func(c any, r *fleetdata.Replicate) error { return c.(*Config).checkReplicate(r) }
	h.CheckGraphReplicate = func(g any, r *fleetdata.GraphReplicate) error { return g.(*Graph).checkReplicate(r) }
	h.CheckObservations = func(c any, obs []stats.Observation, replicates int) error {
		return c.(*Config).checkObservations(obs, replicates)
	}
	h.CheckSweep = func(c any, paths []string) error { return c.(*Config).checkSweep(paths) }
	h.CheckCost = func(cfgs, opt any) error { return checkCosts(cfgs.([]Config), opt.(Options)) }
	h.CheckGraphCost = func(graphs, opt any) error { _, err := graphBounds(graphs.([]Graph), opt.(Options)); return err }
	h.SeriesBytes = func(c any) float64 { return c.(*Config).cost().Series }
	h.Memoryless = func(c any) *fleetdata.Memoryless { return &c.(*Config).memoryless }
	h.First = func(o any) *int { return &o.(*Options).first }
	h.NewTracer = func(c any, seed uint64) fleetdata.Tracer { return newTracer(c.(*Config), seed) }
	h.PathBytes = func(c any) float64 { return pathBytes(c.(*Config)) }
	h.Edges = func(g any) []fleetdata.Edge { return g.(*Graph).edges() }
	h.OutageWindow = func(g any) (float64, float64, bool) { return g.(*Graph).outageWindow() }
	fleetdata.SetHooks(h)
}

// checkSweep refuses a path of a sweep's point that c does not read there,
// then checks c.
func (c *Config) checkSweep(paths []string) error {
	unread := c.unreadWhy()
	for _, path := range paths {
		p, _ := lookupSetting(path)
		if why, ok := unread[p.Path]; ok {
			return pathtext.Errorf(path, "the run does not read it: %s", why)
		}
	}
	return c.Check()
}
