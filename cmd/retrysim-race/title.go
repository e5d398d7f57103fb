package main

import (
	"fmt"
	"math"

	"github.com/retrysim/retrysim/internal/race"
	"github.com/retrysim/retrysim/internal/render"
)

// raceTitle is the title of a race run with base's settings: the workers,
// jobs, deliveries, rounds and lease, and, when set, the crashes, the waves
// and where the databases are kept.
func raceTitle(base race.Config) string {
	title := fmt.Sprintf("The SQLite check, for real: %d worker processes, %s jobs x %d deliveries, %d rounds; lease %v",
		base.Procs, render.Group(int64(base.Jobs)), base.Deliveries, base.Rounds, base.Lease)
	if base.CrashP > 0 {
		title += fmt.Sprintf("; %v%% of first deliveries killed at %s", math.Round(base.CrashP*1e6)/1e4, base.CrashAt)
	}
	if base.Gap > 0 {
		title += fmt.Sprintf("; deliveries %v apart, keys purged after %v", base.Gap, base.TTL)
	}
	if base.Keep {
		title += "; databases kept in " + base.Dir
	}
	return title
}
