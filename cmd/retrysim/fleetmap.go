package main

import (
	"fmt"
	"io"

	"github.com/retrysim/retrysim/internal/cli"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/shardrun"
)

// parseFleetMap parses the fleet-map command's flags into its run, a cell
// an item.
func parseFleetMap(kind string, args []string, stdout, stderr io.Writer) (*shardrun.Work, error) {
	r := cli.New(kind, cli.Usages{
		Replicates: fmt.Sprintf("each cell is simulated with `r` independent seeds, 1 to %d", limits.FleetReplicates),
		Workers:    "parallel `workers`, %d to %d; the output does not depend on it",
		Plot:       "also draw the heat maps to `file` (.png or .svg), a panel a policy and length",
		Shard:      "run slice `i/n` of the cells (0 <= i < n), or auto/n or auto (index, and count, from the environment), and write it as a shard for retrysim merge",
		Doc:        render.FleetDoc,
		Formats:    " (html is one page with the heat maps)",
	}, 100)
	return cli.FleetMap(r, args, helpText("fleet-map"), stdout, stderr)
}
