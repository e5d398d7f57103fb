package fleetrun

import (
	"fmt"
	"strings"

	"github.com/retrysim/retrysim/fleet"
)

// SweepConfigs are the runs of the sweep of base over points (a value for each of paths),
// point after point; a setting refused or unread at a point is a *FieldError naming it.
func SweepConfigs(base []fleet.Config, paths []string, points [][]string) ([]fleet.Config, error) {
	return sweepRuns(base, paths, points, (*fleet.Config).Set, func(c *fleet.Config) error { return h.CheckSweep(c, paths) })
}

// SweepGraphs are SweepConfigs for graphs, by Graph.Set.
func SweepGraphs(base []fleet.Graph, paths []string, points [][]string) ([]fleet.Graph, error) {
	return sweepRuns(base, paths, points, (*fleet.Graph).Set, (*fleet.Graph).Check)
}

// sweepRuns are base's runs at every point, each set by set and checked by check.
func sweepRuns[R any](base []R, paths []string, points [][]string, set func(*R, string, string) error, check func(*R) error) ([]R, error) {
	out := make([]R, 0, len(base)*len(points))
	for _, p := range points {
		for _, r := range base {
			for i, path := range paths {
				if err := set(&r, path, p[i]); err != nil {
					return nil, err
				}
			}
			if err := check(&r); err != nil {
				return nil, fmt.Errorf("at %s: %w", pointText(paths, p), err)
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// pointText is a point's settings, PATH=VALUE each.
func pointText(paths, values []string) string {
	kv := make([]string, len(paths))
	for i, p := range paths {
		kv[i] = p + "=" + values[i]
	}
	return strings.Join(kv, ", ")
}
