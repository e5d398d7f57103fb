package main

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/cli"
	"github.com/retrysim/retrysim/internal/incident"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/replicates"
	"github.com/retrysim/retrysim/internal/shardfile"
	"github.com/retrysim/retrysim/internal/shardrun"
)

// parseIncident parses the incident command's flags into its run, replicate
// k of every run (the incident's and its fixes') an item; with no name its
// run, of no item, lists the gallery.
func parseIncident(kind string, args []string, stdout, _ io.Writer) (*shardrun.Work, error) {
	r := cli.New(kind, cli.Usages{Plain: true, Replicates: fmt.Sprintf("replay each run with `r` independent seeds, 1 to %d", limits.FleetReplicates),
		Plot: "also draw the runs' time series, a panel a run, the incident's first, to `file` (.png or .svg)"}, incident.DefaultReplicates)
	inc, finish, err := cli.Incident(r, args, helpText("incident"), stdout)
	switch {
	case err != nil:
		return nil, err
	case inc == nil:
		return shardrun.Cut(&shardrun.Work{Kind: "incident", Noun: "replicates", Out: r.O.Out}, shardrun.Items[struct{}]{Finish: func(ctx context.Context, _ []struct{}) error {
			return finish(ctx, nil, nil)
		}}), nil
	}
	echo, opts := map[string]string{"incident": inc.Name}, fleet.Options{Replicates: r.Replicates.V, Seed: uint64(r.Seed), Workers: r.Workers.V}
	var w *shardrun.Work
	if inc.Kind == incident.Workers {
		graphs := inc.Graphs()
		w = cli.Work(r, "replicates", echo, cli.GraphFamily{Kind: replicates.Graph(), Runs: graphs}.Items(graphs, r.Replicates.V, opts, false, func(ctx context.Context, res []fleet.GraphResult) error {
			return finish(ctx, nil, res)
		}))
	} else {
		cfgs := inc.Configs()
		w = cli.Work(r, "replicates", echo, cli.FleetFamily{Kind: replicates.Fleet(), Runs: cfgs}.Items(cfgs, r.Replicates.V, opts, false, func(ctx context.Context, res []fleet.Result) error {
			return finish(ctx, res, nil)
		}))
	}
	// The name is a setting of the run: a shard carries it as -name.
	w.Settings = append([]shardfile.Setting{{Flag: "name", Value: inc.Name}}, slices.DeleteFunc(w.Settings, func(s shardfile.Setting) bool { return s.Flag == "name" })...)
	return w, nil
}
