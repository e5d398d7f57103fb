package incident

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
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/render"
)

// intro is the incident command's -help, before its flags.
const intro = `retrysim incident lists the incident gallery: public post-mortems and
warnings replayed on the fleet or workers model, each with its source
quoted, the numbers the source gives beside the replay's, the values
assumed for what it does not give, the outcome as a share of replicates
with its 95% Wilson interval, and the fix the source applied, replayed.
retrysim incident NAME replays one. docs/incidents.md is the gallery.

Usage: retrysim incident
       retrysim incident NAME [flags]

Example: retrysim incident google-cloud-2025-06-12 -plot gcp.png

Flags:
`

// Command is the incident command: with no name it lists the gallery, with
// one it replays that incident and writes it in -format to stdout (and, with
// -plot, its picture).
func Command(ctx context.Context, args []string, stdout, _ io.Writer) error {
	fs := flagval.NewFlagSet("retrysim incident")
	var (
		format                  = flagval.Choice{V: Formats()[0], Names: Formats()}
		seed       flagval.Seed = 1
		replicates              = flagval.Bounded{V: DefaultReplicates, Lo: 1, Hi: fleet.MaxReplicates}
		workers                 = flagval.Bounded{V: runtime.GOMAXPROCS(0), Lo: 1, Hi: 4096}
		plot       string
	)
	format.Valid = func(s string) error {
		if slices.Contains(Formats(), s) {
			return nil
		}
		return fmt.Errorf("unknown format %q (want one of %s)", s, strings.Join(Formats(), ", "))
	}
	fs.Var(&format, "format", "output `format`: "+strings.Join(Formats(), ", ")+" (json holds the source, the assumptions, the outcomes and the runs' rows)")
	fs.Var(&seed, "seed", "random `seed`; the same flags and seed print the same bytes")
	fs.Var(&replicates, "replicates", fmt.Sprintf("replay each run with `r` independent seeds, 1 to %d", fleet.MaxReplicates))
	fs.Var(&workers, "workers", fmt.Sprintf("parallel `workers`, each simulating replicates, %d to %d; the output does not depend on it", workers.Lo, workers.Hi))
	fs.Lookup("workers").DefValue = "GOMAXPROCS"
	fs.StringVar(&plot, "plot", "", "also draw the runs' time series, a panel a run, the incident's first, to `file` (.png or .svg)")
	fs.Var(flagval.NotHere("-shard: the incident command does not shard yet: the one shard envelope (issue 32) has not landed"), "shard", "")
	if err := flagval.ParseFlags(fs, flagval.Interspersed(fs, args), intro, stdout); err != nil {
		return err
	}
	switch fs.NArg() {
	case 0:
		return List(stdout)
	case 1:
	default:
		return flagval.Usage(fmt.Errorf("incident: one incident at a time (got %s)", strings.Join(fs.Args(), ", ")))
	}
	inc, err := Lookup(fs.Arg(0))
	if err != nil {
		return flagval.Usage(fmt.Errorf("incident: %w", err))
	}
	plotF := outfile.File{Flag: "plot", Path: plot}
	if plot != "" {
		if err := render.CheckPlotPath(plot); err != nil {
			return flagval.Usage(fmt.Errorf("-plot: %w", err))
		}
		if err := outfile.Check(plotF); err != nil {
			return flagval.Usage(err)
		}
	}
	opt := Options{Replicates: replicates.V, Seed: uint64(seed), Workers: workers.V}
	rep, err := Replay(ctx, inc, opt)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := Write(&out, rep, format.V); err != nil {
		return err
	}
	outs := []outfile.Output{{File: outfile.File{}, Data: out.Bytes()}}
	if plot != "" {
		var pic bytes.Buffer
		if err := Plot(&pic, rep, filepath.Ext(plot)); err != nil {
			return err
		}
		outs = append(outs, outfile.Output{File: plotF, Data: pic.Bytes()})
	}
	return outfile.WriteAll(ctx, stdout, outs...)
}
