package main

import (
	"fmt"
	"io"

	"github.com/retrysim/retrysim/internal/cli"
	"github.com/retrysim/retrysim/internal/incident"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/shardrun"
)

// parseIncident parses the incident command's flags into its run.
func parseIncident(kind string, args []string, stdout, _ io.Writer) (*shardrun.Work, error) {
	r := cli.New(kind, cli.Usages{Plain: true, Replicates: fmt.Sprintf("replay each run with `r` independent seeds, 1 to %d", limits.FleetReplicates),
		Plot: "also draw the runs' time series, a panel a run, the incident's first, to `file` (.png or .svg)"}, incident.DefaultReplicates)
	return cli.Incident(r, args, helpText("incident"), stdout)
}
