package main

import (
	"io"
	"strings"

	"github.com/retrysim/retrysim/internal/cli"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/shardrun"
)

// parseGraphs parses the flags of kind (graph or workers, or a sweep of
// either) into its run, a replicate (of a point) an item.
func parseGraphs(kind string, args []string, stdout, stderr io.Writer) (*shardrun.Work, error) {
	r, f, err := parseGraphKind(kind, args, stdout, stderr)
	if err != nil {
		return nil, err
	}
	return f.Work(r, stdout, stderr)
}

// parseGraphKind parses the flags of kind (graph or workers, or a sweep of
// either) into its flags and its graphs' runs, the scenario file's digest
// their echo.
func parseGraphKind(kind string, args []string, stdout, stderr io.Writer) (*cli.Run, cli.GraphFamily, error) {
	name, build, u := strings.TrimPrefix(kind, "sweep "), cli.Graphs, cli.Usages{
		Preset:            "run the graphs of the preset `name` (listed above)",
		Scenario:          "run the graph of the graph section of this scenario `file`",
		Duration:          "a preset's requests arrive for this `duration` of virtual time, 1s to 1h, instead of the preset's own, or of a file's that sets no graph.duration",
		Replicates:        "a graph is simulated with `r` independent seeds, 1 to 1000",
		ReplicatesDefault: "a preset's own, else 10",
		Series:            "also write the series, a row a run a service a second, to `file` (.csv or .json)",
		Plot:              "also draw the series to `file` (.png or .svg), a panel a service",
		Doc:               render.GraphDoc,
		Formats:           " (json also holds each graph's settings and each service's series; html is one page with the series drawn)",
	}
	if name == "workers" {
		build, u = cli.Workers, cli.Usages{
			Preset:            "run the worker fleets of the preset `name` (listed above)",
			Scenario:          "run the fleet of the graph section of this scenario `file`: its first entry the queue, the service it sends to the workers",
			Duration:          "jobs arrive for this `duration` of virtual time, 1s to 1h, instead of the preset's own, or of a file's that sets no graph.duration",
			Replicates:        "a run is simulated with `r` independent seeds, 1 to 1000",
			ReplicatesDefault: "a preset's own, else 10",
			Workers:           "parallel `workers` (goroutines, not the model's: those are -worker-count), each simulating replicates, %d to %d; the output does not depend on it",
			Plot:              "also draw the series to `file` (.png or .svg): jobs a second, jobs waiting, the oldest's age, a panel a dependency",
			Doc:               render.WorkersDoc,
			Formats:           " (json also holds each run's series a second; html is one page with the series drawn)",
		}
	}
	r := cli.New(kind, u, 10)
	f, err := build(r, args, helpText(name), stdout, stderr)
	if err == nil {
		f.Echo, err = shardrun.ScenarioDigest(r.Scenario)
	}
	return r, f, err
}
