package main

import (
	"io"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/cli"
	"github.com/retrysim/retrysim/internal/fleetpreset"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/shardrun"
)

// parseFleetAs parses the flags of kind (fleet, or its sweep) into its
// run, a replicate (of a point) an item.
func parseFleetAs(kind string, args []string, stdout, stderr io.Writer) (*shardrun.Work, error) {
	r, p, cfgs, err := parseFleetRuns(kind, args, stdout, stderr)
	if err != nil {
		return nil, err
	}
	return cli.Fleet(r, p, cfgs, stdout, stderr)
}

// parseFleetRuns parses the flags of the fleet command, or of its sweep
// (kind), into its runs, checked, and the preset they are ("one run" for
// none).
func parseFleetRuns(kind string, args []string, stdout, stderr io.Writer) (*cli.Run, fleetpreset.Preset[fleet.Config], []fleet.Config, error) {
	r := cli.New(kind, cli.Usages{
		Preset:     "run the runs of the preset `name` (listed above) instead of one run from the flags",
		Scenario:   "take the model's settings from the fleet section of this scenario `file` (keys named as the flags, with _ for -: server, capacity, policy, hedges, ...), which holds no job (steps, watched, queue); a flag it sets may not be given too",
		Duration:   "requests arrive for this `duration` of virtual time, 1s to 1h (a preset has its own)",
		Replicates: "a run is simulated with `r` independent seeds, 1 to 1000 (a preset has its own)",
		Series:     "also write the time series, a row a run a second, to `file` (.csv or .json)",
		Plot:       "also draw the time series to `file` (.png or .svg), a panel a run",
		Doc:        render.FleetDoc,
		Formats:    " (json also holds the series; html is one page with the series drawn)",
	}, 10)
	p, cfgs, err := cli.FleetRuns(r, args, helpText("fleet"), stdout, stderr)
	return r, p, cfgs, err
}
