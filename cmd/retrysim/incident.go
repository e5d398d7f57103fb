package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/cli"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/incident"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/replicates"
	"github.com/retrysim/retrysim/internal/shardfile"
)

// parseIncident parses the incident command's flags into its run, replicate
// k of every run (the incident's and its fixes') an item; with no name its
// run, of no item, lists the gallery.
func parseIncident(kind string, args []string, stdout, _ io.Writer) (*work, error) {
	r := cli.New(kind, cli.Usages{Plain: true, Replicates: fmt.Sprintf("replay each run with `r` independent seeds, 1 to %d", limits.FleetReplicates),
		Plot: "also draw the runs' time series, a panel a run, the incident's first, to `file` (.png or .svg)"}, incident.DefaultReplicates)
	fs, format := r.FS, flagval.Choice{V: incident.Formats()[0], Names: incident.Formats(),
		Valid: flagval.OneOf("format", "one of "+strings.Join(incident.Formats(), ", "), incident.Formats()...)}
	fs.Var(&format, "format", "output `format`: "+strings.Join(incident.Formats(), ", ")+" (json holds the source, the assumptions, the outcomes and the runs' rows)")
	var name string
	fs.StringVar(&name, "name", "", "the incident to replay, by its `name` (the same as giving NAME)")
	args = flagval.Interspersed(fs, args)
	if err := flagval.ParseFlags(fs, args, helpText("incident"), stdout); err != nil {
		return nil, err
	}
	r.Args = args
	names := fs.Args()
	if name != "" {
		names = append([]string{name}, names...)
	}
	switch len(names) {
	case 0:
		if r.Shard.Count > 0 {
			return nil, flagval.Usage(fmt.Errorf("-shard: the list is not sharded; name the incident to replay"))
		}
		list := func(ctx context.Context, _ []struct{}) error {
			return outfile.WriteAll(ctx, stdout, outfile.Output{File: r.O.Out, Data: incidentList()})
		}
		return items(&work{kind: "incident", noun: "replicates", out: r.O.Out}, nil, nil, list), nil
	case 1:
	default:
		return nil, flagval.Usage(fmt.Errorf("incident: one incident at a time (got %s)", strings.Join(names, ", ")))
	}
	inc, err := incident.Lookup(names[0])
	if err != nil {
		return nil, flagval.Usage(fmt.Errorf("incident: %w", err))
	}
	if err := outfile.Check(r.O.Out); err != nil {
		return nil, flagval.Usage(err)
	}
	if r.Shard.Count > 0 {
		if err := cli.RefuseShardOutputs(fs, "", r.Plot.Path); err != nil {
			return nil, err
		}
	}
	if r.Plot.Path != "" {
		if err := render.CheckPlotPath(r.Plot.Path); err != nil {
			return nil, flagval.Usage(fmt.Errorf("-plot: %w", err))
		}
		if err := outfile.Check(r.O.Out, r.Plot); err != nil { // not -o's file
			return nil, flagval.Usage(err)
		}
	}
	// The name is a setting of the run: a shard carries it as -name.
	w := runWork(r, "replicates", r.Replicates.V, map[string]string{"incident": inc.Name})
	w.settings = append([]shardfile.Setting{{Flag: "name", Value: inc.Name}}, slices.DeleteFunc(w.settings, func(s shardfile.Setting) bool { return s.Flag == "name" })...)
	opts := fleet.Options{Replicates: r.Replicates.V, Seed: uint64(r.Seed), Workers: r.Workers.V}
	finish := func(ctx context.Context, fl []fleet.Result, gr []fleet.GraphResult) error {
		rep := incident.Judge(inc, uint64(r.Seed), fl, gr)
		var main bytes.Buffer
		if err := incident.Write(&main, rep, format.V); err != nil {
			return err
		}
		var pic bytes.Buffer
		if r.Plot.Path != "" {
			if err := incident.Plot(&pic, rep, filepath.Ext(r.Plot.Path)); err != nil {
				return err
			}
		}
		return r.Write(ctx, stdout, main.Bytes(), nil, pic.Bytes(), nil)
	}
	if inc.Kind == incident.Workers {
		graphs := inc.Graphs()
		return kindItems(replicates.Graph(), w, graphs, len(graphs), opts, nil, func(ctx context.Context, res []fleet.GraphResult) error {
			return finish(ctx, nil, res)
		}), nil
	}
	cfgs := inc.Configs()
	return kindItems(replicates.Fleet(), w, cfgs, len(cfgs), opts, nil, func(ctx context.Context, res []fleet.Result) error {
		return finish(ctx, res, nil)
	}), nil
}

// incidentList is the gallery's list, as incident.List writes it.
func incidentList() []byte {
	var b bytes.Buffer
	incident.List(&b) // a bytes.Buffer does not fail
	return b.Bytes()
}
