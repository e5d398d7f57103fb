package main

import (
	"fmt"
	"math"

	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/race"
)

// raceTitle is the title of a race run with base's settings: the workers,
// jobs, deliveries, rounds and lease, and, when set, the crashes, the waves
// and where the databases are kept; with compare, what its brackets are.
func raceTitle(base race.Config, compare bool) string {
	title := fmt.Sprintf("The SQLite check, for real: %s, %s x %s, %s; lease %s",
		human.Count(int64(base.Procs), "worker process"), human.Count(int64(base.Jobs), "job"),
		human.Count(int64(base.Deliveries), "delivery"), human.Count(int64(base.Rounds), "round"), human.Duration(base.Lease))
	if base.CrashP > 0 {
		title += fmt.Sprintf("; %v%% of first deliveries killed at %s", math.Round(base.CrashP*1e6)/1e4, base.CrashAt)
	}
	if base.Gap > 0 {
		title += fmt.Sprintf("; deliveries %s apart, keys purged after %s", human.Duration(base.Gap), human.Duration(base.TTL))
	}
	if base.Keep {
		title += "; databases kept in " + base.Dir
	}
	if compare {
		title += "; [lo, hi]: 95% intervals"
	}
	return title
}
