package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/incident"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/replicates"
	"github.com/retrysim/retrysim/internal/shardfile"
	"github.com/retrysim/retrysim/internal/shardrun"
)

// Incident declares the incident command's flags, parses args (-help
// printing help) and makes the replay of the incident named, replicate k of
// every run (the incident's and its fixes', fleet or graph by its kind) an
// item; with no name its run, of no item, lists the gallery.
func Incident(kind string, args []string, help string, stdout, _ io.Writer) (*shardrun.Work, error) {
	r := New(kind, Usages{Plain: true, Replicates: fmt.Sprintf("replay each run with `r` independent seeds, 1 to %d", limits.FleetReplicates),
		Plot: "also draw the runs' time series, a panel a run, the incident's first, to `file` (.png or .svg)"}, incident.DefaultReplicates)
	fs, format := r.FS, flagval.Choice{V: incident.Formats()[0], Names: incident.Formats(),
		Valid: flagval.OneOf("format", "one of "+strings.Join(incident.Formats(), ", "), incident.Formats()...)}
	fs.Var(&format, "format", "output `format`: "+strings.Join(incident.Formats(), ", ")+" (json holds the source, the assumptions, the outcomes and the runs' rows)")
	var name string
	fs.StringVar(&name, "name", "", "the incident to replay, by its `name` (the same as giving NAME)")
	args = flagval.Interspersed(fs, args)
	if err := flagval.ParseFlags(fs, args, help, stdout); err != nil {
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
		return shardrun.Cut(&shardrun.Work{Kind: "incident", Noun: "replicates", Out: r.O.Out}, shardrun.Items[struct{}]{Finish: func(ctx context.Context, _ []struct{}) error {
			var b bytes.Buffer
			incident.List(&b) // a bytes.Buffer does not fail
			return outfile.WriteAll(ctx, stdout, outfile.Output{File: r.O.Out, Data: b.Bytes()})
		}}), nil
	case 1:
	default:
		return nil, flagval.Usage(fmt.Errorf("incident: one incident at a time (got %s)", strings.Join(names, ", ")))
	}
	inc, err := incident.Lookup(names[0])
	if err != nil {
		return nil, flagval.Usage(fmt.Errorf("incident: %w", err))
	}
	if err := r.checkOutputs(); err != nil {
		return nil, err
	}
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
		return r.Write(ctx, stdout, nil, main.Bytes(), nil, pic.Bytes())
	}
	echo, opts := map[string]string{"incident": inc.Name}, fleet.Options{Replicates: r.Replicates.V, Seed: uint64(r.Seed), Workers: r.Workers.V}
	var w *shardrun.Work
	if inc.Kind == incident.Workers {
		graphs := inc.Graphs()
		w = Work(r, "replicates", echo, GraphFamily{Kind: replicates.Graph(), Runs: graphs}.Items(graphs, r.Replicates.V, opts, false, func(ctx context.Context, res []fleet.GraphResult) error {
			return finish(ctx, nil, res)
		}))
	} else {
		cfgs := inc.Configs()
		w = Work(r, "replicates", echo, FleetFamily{Kind: replicates.Fleet(), Runs: cfgs}.Items(cfgs, r.Replicates.V, opts, false, func(ctx context.Context, res []fleet.Result) error {
			return finish(ctx, res, nil)
		}))
	}
	// The name is a setting of the run: a shard carries it as -name.
	w.Settings = append([]shardfile.Setting{{Flag: "name", Value: inc.Name}}, slices.DeleteFunc(w.Settings, func(s shardfile.Setting) bool { return s.Flag == "name" })...)
	return w, nil
}
