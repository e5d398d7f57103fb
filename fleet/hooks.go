package fleet

import (
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/pathtext"
)

// init gives internal/fleetrun what is no API (fleetdata.Hooks).
func init() {
	fleetdata.SetHooks(&fleetdata.Hooks[Result, GraphResult, Config, Graph, Options]{
		Replicates:      func(r Result) []fleetdata.Replicate { return r.replicates },
		GraphReplicates: func(r GraphResult) []fleetdata.GraphReplicate { return r.replicates },
		Result:          func(c Config, reps []fleetdata.Replicate) Result { return Result{Config: c, replicates: reps} },
		GraphResult: func(g Graph, reps []fleetdata.GraphReplicate) GraphResult {
			return GraphResult{Graph: g, replicates: reps}
		},

		Summary:              Result.summary,
		Totals:               Result.totals,
		Series:               Result.series,
		Observations:         Result.observations,
		RecoveryCurve:        Result.recoveryCurve,
		DuplicatesPerRequest: Result.duplicatesPerRequest,

		Rows:          GraphResult.rows,
		GraphSeries:   GraphResult.series,
		WorkersRows:   GraphResult.workersRows,
		WorkersSeries: GraphResult.workersSeries,

		CheckReplicate:      (*Config).checkReplicate,
		CheckGraphReplicate: (*Graph).checkReplicate,
		CheckObservations:   (*Config).checkObservations,
		CheckSweep:          (*Config).checkSweep,

		CheckCost:      checkCosts,
		CheckGraphCost: func(graphs []Graph, opt Options) error { _, err := graphBounds(graphs, opt); return err },
		SeriesBytes:    func(c *Config) float64 { return c.cost().Series },
		First:          func(o *Options) *int { return &o.first },
		Memoryless:     func(c *Config) *fleetdata.Memoryless { return &c.memoryless },
		NewTracer:      func(c *Config, seed uint64) fleetdata.Tracer { return newTracer(c, seed) },
		PathBytes:      pathBytes,
		Edges:          (*Graph).edges,
		OutageWindow:   (*Graph).outageWindow,
	})
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
