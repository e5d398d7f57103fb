// Package fleetrun reads a fleet run's data from fleet's public results and makes results
// of it, calling fleet's non-API functions through fleetdata's Hooks, typed here.
package fleetrun

import (
	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetdata"
)

// h are fleet's hooks, set by fleet's init before this package's variables.
var h = fleetdata.Fleet[fleet.Result, fleet.GraphResult, fleet.Config, fleet.Graph, fleet.Options]()

// Fleet is a copy of fleet's hooks, typed as fleet's.
func Fleet() fleetdata.Hooks[fleet.Result, fleet.GraphResult, fleet.Config, fleet.Graph, fleet.Options] {
	return *h
}
