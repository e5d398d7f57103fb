// Package raceresult holds the rows of the real SQLite check (internal/race)
// and the simulator's side of its comparison, apart from the harness so the
// renderer reads them without building the SQLite driver.
package raceresult

import "github.com/retrysim/retrysim/internal/stats"

// Row is one mode of the real SQLite check.
type Row struct {
	Mode          string
	Races         int64 // jobs whose deliveries competed: Jobs x Rounds
	DoubleCharged int64 // jobs charged more than once
	Lost          int64 // jobs marked handled and never charged
	BusyRetries   int64 // SQLITE_BUSY answers retried by the workers
	Deliveries    int64 // deliveries handled or killed
	Crashes       int64 // workers killed
	Refused       int64 // claims refused by the constraint
	RefusedCodes  []int // the distinct extended codes of those refusals
	Overlaps      int64 // jobs whose deliveries' key windows overlapped
	WallSeconds   float64
	// Sim is the simulator's side, when the comparison was asked for.
	Sim *Sim
}

// Sim is the simulator's side of a comparison.
type Sim struct {
	// Jobs, DoubleCharged and Lost are the run at the measured rates.
	Jobs          int64
	DoubleCharged int64
	Lost          int64
	// The rates' range over the measured rates' 95% intervals.
	DoubleLo, DoubleHi float64
	LostLo, LostHi     float64
}

// Agree reports whether the simulated rates of double charges and lost keys
// fall in the harness's 95% intervals, or the harness's in the simulator's
// (widened to its range over the measured rates' intervals).
func (r Row) Agree() bool {
	if r.Sim == nil {
		return false
	}
	one := func(x, y int64, lo, hi float64) bool {
		real, sim := stats.Wilson(x, r.Races), stats.Wilson(y, r.Sim.Jobs)
		p, q := float64(x)/float64(r.Races), float64(y)/float64(r.Sim.Jobs)
		return real.Lo <= q && q <= real.Hi || min(sim.Lo, lo) <= p && p <= max(sim.Hi, hi)
	}
	return one(r.DoubleCharged, r.Sim.DoubleCharged, r.Sim.DoubleLo, r.Sim.DoubleHi) &&
		one(r.Lost, r.Sim.Lost, r.Sim.LostLo, r.Sim.LostHi)
}
