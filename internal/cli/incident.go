package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/incident"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/shardrun"
)

// Incident declares -format and -name on r, parses args (-help printing
// help) and makes the replay of the incident named (nil: none, the
// gallery's list), finish writing it from its runs' results, fleet or
// graph by the incident's kind.
func Incident(r *Run, args []string, help string, stdout io.Writer) (*incident.Incident, func(ctx context.Context, fl []fleet.Result, gr []fleet.GraphResult) error, error) {
	fs, format := r.FS, flagval.Choice{V: incident.Formats()[0], Names: incident.Formats(),
		Valid: flagval.OneOf("format", "one of "+strings.Join(incident.Formats(), ", "), incident.Formats()...)}
	fs.Var(&format, "format", "output `format`: "+strings.Join(incident.Formats(), ", ")+" (json holds the source, the assumptions, the outcomes and the runs' rows)")
	var name string
	fs.StringVar(&name, "name", "", "the incident to replay, by its `name` (the same as giving NAME)")
	args = flagval.Interspersed(fs, args)
	if err := flagval.ParseFlags(fs, args, help, stdout); err != nil {
		return nil, nil, err
	}
	r.Args = args
	names := fs.Args()
	if name != "" {
		names = append([]string{name}, names...)
	}
	switch len(names) {
	case 0:
		if r.Shard.Count > 0 {
			return nil, nil, flagval.Usage(fmt.Errorf("-shard: the list is not sharded; name the incident to replay"))
		}
		return nil, func(ctx context.Context, _ []fleet.Result, _ []fleet.GraphResult) error {
			var b bytes.Buffer
			incident.List(&b) // a bytes.Buffer does not fail
			return outfile.WriteAll(ctx, stdout, outfile.Output{File: r.O.Out, Data: b.Bytes()})
		}, nil
	case 1:
	default:
		return nil, nil, flagval.Usage(fmt.Errorf("incident: one incident at a time (got %s)", strings.Join(names, ", ")))
	}
	inc, err := incident.Lookup(names[0])
	if err != nil {
		return nil, nil, flagval.Usage(fmt.Errorf("incident: %w", err))
	}
	if err := outfile.Check(r.O.Out); err != nil {
		return nil, nil, flagval.Usage(err)
	}
	if r.Shard.Count > 0 {
		if err := shardrun.RefuseOutputs(fs, "", r.Plot.Path); err != nil {
			return nil, nil, err
		}
	}
	if r.Plot.Path != "" {
		if err := render.CheckPlotPath(r.Plot.Path); err != nil {
			return nil, nil, flagval.Usage(fmt.Errorf("-plot: %w", err))
		}
		if err := outfile.Check(r.O.Out, r.Plot); err != nil { // not -o's file
			return nil, nil, flagval.Usage(err)
		}
	}
	return &inc, func(ctx context.Context, fl []fleet.Result, gr []fleet.GraphResult) error {
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
		return r.write(ctx, stdout, main.Bytes(), nil, pic.Bytes(), nil)
	}, nil
}
