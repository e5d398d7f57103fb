package retrysim

import (
	"context"

	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/internal/stats"
)

// init sets jobapi's hooks.
func init() {
	jobapi.Set(jobapi.Hooks{
		Results: func(rep any, ci, expect bool) stats.Report {
			r := rep.(Report)
			return r.results(ci, expect)
		},
		SweepStats: func(res any) stats.Sweep {
			r := res.(SweepResult)
			return r.stats()
		},
		RunShard: func(ctx context.Context, e any, index, count int) (stats.Shard, error) {
			x := e.(Experiment)
			if err := x.checkShard(index, count); err != nil {
				return stats.Shard{}, err
			}
			if err := x.shardable(); err != nil { // a zero Merger must rebuild it
				return stats.Shard{}, err
			}
			return x.runShard(ctx, index, count)
		},
		Settings: settingDefs,
		Unread:   func(e any) map[string]string { return e.(Experiment).unread() },
		SweepUnread: func(s any) map[string]string {
			p, _ := s.(Sweep).plan()
			return p.unread
		},
		ScenarioFile: func(e any) *string { return &e.(*Experiment).scenarioFile },
		RunSweeps:    func(ctx context.Context, ss any) ([]stats.Sweep, error) { return runSweeps(ctx, ss.([]Sweep)) },
		SweepPoints: func(s any) (int, error) {
			p, err := s.(Sweep).plan()
			return len(p.points), err
		},
		RunSweepPoints: func(ctx context.Context, s any, lo, hi int) ([]jobapi.SweepPoint, error) {
			return runSweepPoints(ctx, s.(Sweep), lo, hi)
		},
		SweepOf:    func(s any, points []jobapi.SweepPoint) (stats.Sweep, error) { return sweepOf(s.(Sweep), points) },
		SweepShown: func(s any, name string) (stats.Axis, error) { return s.(Sweep).shown(name) },
		SweepValue: func(s any, name string) (float64, error) { return s.(Sweep).value(name) },
		SweepWarning: func(s any) string {
			p, _ := s.(Sweep).plan()
			return p.warn
		},
	})
}
