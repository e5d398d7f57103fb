// Package testhook lets a test add settings to a model's table of
// settings, so that a test of the command can show that every layer (flags,
// help, scenario keys, the report's echo, errors) derives from the table,
// and gives a test a directory in memory. Nothing but tests sets anything
// here.
package testhook

import "sync"

var (
	mu          sync.Mutex
	fleetParams any
)

// SetFleetParams makes ps (a []fleet.Param) the settings fleet.Params lists
// after its own, until the returned function undoes it.
func SetFleetParams(ps any) (undo func()) {
	mu.Lock()
	defer mu.Unlock()
	old := fleetParams
	fleetParams = ps
	return func() {
		mu.Lock()
		defer mu.Unlock()
		fleetParams = old
	}
}

// FleetParams is what SetFleetParams set, nil when no test set anything.
func FleetParams() any {
	mu.Lock()
	defer mu.Unlock()
	return fleetParams
}
