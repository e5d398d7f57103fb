package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/incident"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/shardfile"
)

// parseIncident parses the incident command's flags into its run, replicate
// k of every run (the incident's and its fixes') an item; with no name its
// run, of no item, lists the gallery.
func parseIncident(_ string, args []string, stdout, _ io.Writer) (*work, error) {
	fs := flagval.NewFlagSet("retrysim incident")
	var (
		format                  = flagval.Choice{V: incident.Formats()[0], Names: incident.Formats()}
		seed       flagval.Seed = 1
		replicates              = flagval.Bounded{V: incident.DefaultReplicates, Lo: 1, Hi: fleet.MaxReplicates}
		workers                 = flagval.Bounded{V: runtime.GOMAXPROCS(0), Lo: 1, Hi: 4096}
		plot, name string
		shard      flagval.Shard
		out        = outfile.File{Flag: "o"}
	)
	format.Valid = func(s string) error {
		if slices.Contains(incident.Formats(), s) {
			return nil
		}
		return fmt.Errorf("unknown format %q (want one of %s)", s, strings.Join(incident.Formats(), ", "))
	}
	fs.Var(&format, "format", "output `format`: "+strings.Join(incident.Formats(), ", ")+" (json holds the source, the assumptions, the outcomes and the runs' rows)")
	fs.Var(&seed, "seed", "random `seed`; the same flags and seed print the same bytes")
	fs.Var(&replicates, "replicates", fmt.Sprintf("replay each run with `r` independent seeds, 1 to %d", fleet.MaxReplicates))
	fs.Var(&workers, "workers", fmt.Sprintf("parallel `workers`, each simulating replicates, %d to %d; the output does not depend on it", workers.Lo, workers.Hi))
	fs.Lookup("workers").DefValue = "GOMAXPROCS"
	fs.StringVar(&plot, "plot", "", "also draw the runs' time series, a panel a run, the incident's first, to `file` (.png or .svg)")
	fs.StringVar(&name, "name", "", "the incident to replay, by its `name` (the same as giving NAME)")
	fs.Var(&shard, "shard", shardUsage)
	fs.StringVar(&out.Path, "o", "", "write the output to `file` (atomically) instead of stdout")
	if err := flagval.ParseFlags(fs, flagval.Interspersed(fs, args), helpText("incident"), stdout); err != nil {
		return nil, err
	}
	names := fs.Args()
	if name != "" {
		names = append([]string{name}, names...)
	}
	switch len(names) {
	case 0:
		if shard.Count > 0 {
			return nil, flagval.Usage(fmt.Errorf("-shard: the list is not sharded; name the incident to replay"))
		}
		list := func(ctx context.Context, _ []struct{}) error {
			return outfile.WriteAll(ctx, stdout, outfile.Output{File: out, Data: incidentList()})
		}
		return items(&work{kind: "incident", noun: "replicates", out: out}, nil, nil, list), nil
	case 1:
	default:
		return nil, flagval.Usage(fmt.Errorf("incident: one incident at a time (got %s)", strings.Join(names, ", ")))
	}
	inc, err := incident.Lookup(names[0])
	if err != nil {
		return nil, flagval.Usage(fmt.Errorf("incident: %w", err))
	}
	if err := outfile.Check(out); err != nil {
		return nil, flagval.Usage(err)
	}
	plotF := outfile.File{Flag: "plot", Path: plot}
	if shard.Count > 0 {
		if err := refuseShardOutputs(fs, "", plot); err != nil {
			return nil, err
		}
	}
	if plot != "" {
		if err := render.CheckPlotPath(plot); err != nil {
			return nil, flagval.Usage(fmt.Errorf("-plot: %w", err))
		}
		if err := outfile.Check(plotF); err != nil {
			return nil, flagval.Usage(err)
		}
	}
	// The name is a setting of the run: a shard carries it as -name.
	settings := append([]shardfile.Setting{{Flag: "name", Value: inc.Name}}, slices.DeleteFunc(shardSettings(fs, flagval.Interspersed(fs, args)), func(s shardfile.Setting) bool { return s.Flag == "name" })...)
	w := &work{kind: "incident", noun: "replicates", n: replicates.V, echo: map[string]string{"incident": inc.Name},
		shard: shard, settings: settings, out: out}
	opts := fleet.Options{Replicates: replicates.V, Seed: uint64(seed), Workers: workers.V}
	finish := func(ctx context.Context, fl []fleet.Result, gr []fleet.GraphResult) error {
		rep := incident.Judge(inc, uint64(seed), fl, gr)
		var main bytes.Buffer
		if err := incident.Write(&main, rep, format.V); err != nil {
			return err
		}
		outs := []outfile.Output{{File: out, Data: main.Bytes()}}
		if plot != "" {
			var pic bytes.Buffer
			if err := incident.Plot(&pic, rep, filepath.Ext(plot)); err != nil {
				return err
			}
			outs = append(outs, outfile.Output{File: plotF, Data: pic.Bytes()})
		}
		return outfile.WriteAll(ctx, stdout, outs...)
	}
	if inc.Kind == incident.Workers {
		graphs := inc.Graphs()
		return graphEngine.items(w, graphs, len(graphs), opts, nil, func(ctx context.Context, res []fleet.GraphResult) error {
			return finish(ctx, nil, res)
		}), nil
	}
	cfgs := inc.Configs()
	return fleetEngine.items(w, cfgs, len(cfgs), opts, nil, func(ctx context.Context, res []fleet.Result) error {
		return finish(ctx, res, nil)
	}), nil
}

// incidentList is the gallery's list, as incident.List writes it.
func incidentList() []byte {
	var b bytes.Buffer
	incident.List(&b) // a bytes.Buffer does not fail
	return b.Bytes()
}
