package fleet

import "testing"

// What preset_ext_test.go's tests of the presets need of fleet's internals
// and of its tests' helpers.

// CheckCostBound is checkCost: a replicate of c within c.Cost().
func CheckCostBound(t *testing.T, c Config, seed uint64) { t.Helper(); checkCost(t, c, seed) }

// CPUTime is cpuTime.
var CPUTime = cpuTime

// CollapseRuns, OutageFleet and QueueClient are the engine tests' copies
// of the presets' runs (fixture_test.go), which TestFixturesArePresets
// holds equal to internal/fleetpreset's.
var (
	CollapseRuns = collapseRuns
	OutageFleet  = outageFleet
	QueueClient  = queueClient
)
