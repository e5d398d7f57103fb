// Package shardrun runs a command's work, a run of one kind cut into items,
// whole or as the slice -shard names (a shardfile envelope), and merges the
// slices again, judging -require over what the run wrote. What an item is, and
// how outputs are written, is the kind's.
package shardrun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/shardfile"
)

// mergeOwn are the flags a shard never carries: merge takes them from its own command line.
var mergeOwn = []string{"o", "plot", "series", "format", "width", "metric", "log-y", "linear-y", "own-scales", "ci", "expect", "shard", "workers", "help", "h"}

// Settings are the flags fs parsed from args as a shard carries them, in the
// order given, but mergeOwn's.
func Settings(fs *flag.FlagSet, args []string) []shardfile.Setting {
	var out []shardfile.Setting
	for _, a := range flagval.Args(fs, args) {
		if !a.Flag {
			return out // flagval.Parse has refused what follows
		}
		if !slices.Contains(mergeOwn, a.Name) {
			out = append(out, shardfile.Setting{Flag: a.Name, Value: a.Value})
		}
	}
	return out
}

// settingArgs are the flags that make again the run whose shard h heads,
// refusing one of mergeOwn's, so a shard decides no output's place or form.
func settingArgs(h shardfile.Header) ([]string, error) {
	args := make([]string, 0, len(h.Settings))
	for i, s := range h.Settings {
		if slices.Contains(mergeOwn, s.Flag) {
			return nil, fmt.Errorf("settings[%d]: -%s is not a setting of the run; it is given to retrysim merge", i, s.Flag)
		}
		args = append(args, "-"+s.Flag+"="+s.Value)
	}
	return args, nil
}

// RefuseInShard refuses, in a run that writes a shard, the flags names.
func RefuseInShard(fs *flag.FlagSet, names ...string) error {
	return flagval.Refuse(fs, func(n string) string {
		if slices.Contains(names, n) {
			return fmt.Sprintf("a shard carries the run's settings, not how it is printed; give -%s to retrysim merge", n)
		}
		return ""
	})
}

// RefuseOutputs refuses, in a run that writes a shard, -series, -plot,
// -format and -width (series and plot are their files).
func RefuseOutputs(fs *flag.FlagSet, series, plot string) error {
	switch {
	case plot != "":
		return flagval.Usage(fmt.Errorf("-plot: a shard draws nothing; give -plot to retrysim merge"))
	case series != "":
		return flagval.Usage(fmt.Errorf("-series: a shard writes no series; give -series to retrysim merge"))
	}
	return RefuseInShard(fs, "format", "width")
}

// Usage is -shard's usage where a run's items are its replicates.
const Usage = "run slice `i/n` of the replicates (0 <= i < n), or auto/n or auto (index, and count, from the environment, as retrysim fleet-map -help says), and write it as a shard for retrysim merge"

// Work is a run of one kind cut into items: what -shard slices and merge joins.
type Work struct {
	Kind     string // its kind, a key of the kinds Merge is given
	Noun     string // what its items are, plural
	N        int    // its items
	Echo     any    // what the settings made beyond their flags (a scenario file's digest, the runs' parameters)
	Shard    flagval.Shard
	Settings []shardfile.Setting
	Out      outfile.File
	// Whole runs every item and writes the outputs; slice encodes items lo
	// to hi-1 as the shard of h; merge writes the outputs from the shards.
	Whole func(ctx context.Context) error
	slice func(ctx context.Context, h shardfile.Header, lo, hi int) ([]byte, error)
	merge func(ctx context.Context, names []string, shards []shardfile.Shard) error
}

// Items is a run cut into N items of type T: Run runs items lo to hi-1,
// Check refuses an item k that no run of the settings makes, and Finish
// writes the run's outputs from all its items.
type Items[T any] struct {
	N      int
	Run    func(ctx context.Context, lo, hi int) ([]T, error)
	Check  func(k int, item *T) error
	Finish func(ctx context.Context, all []T) error
}

// Cut makes w the run it cuts into items; Run is never asked for none, so
// nil serves a run of no item.
func Cut[T any](w *Work, it Items[T]) *Work {
	w.N = it.N
	slice := func(ctx context.Context, lo, hi int) ([]T, error) {
		if hi > lo {
			return it.Run(ctx, lo, hi)
		}
		return nil, nil
	}
	w.Whole = func(ctx context.Context) error {
		all, err := slice(ctx, 0, w.N)
		if err != nil {
			return err
		}
		return it.Finish(ctx, all)
	}
	w.slice = func(ctx context.Context, h shardfile.Header, lo, hi int) ([]byte, error) {
		items, err := slice(ctx, lo, hi)
		if err != nil {
			return nil, err
		}
		return shardfile.Encode(h, items)
	}
	w.merge = func(ctx context.Context, names []string, shards []shardfile.Shard) error {
		all, err := shardfile.Gather(w.N, w.Noun, names, shards, it.Check)
		if err != nil {
			return flagval.Usage(fmt.Errorf("merge: %w", err))
		}
		return it.Finish(ctx, all)
	}
	return w
}

// Do runs w whole, or with -shard its slice, written as a shard to -o.
func (w *Work) Do(ctx context.Context, stdout io.Writer) error {
	if w.Shard.Count == 0 {
		return w.Whole(ctx)
	}
	echo, err := json.Marshal(w.Echo)
	if err != nil {
		return err
	}
	h := shardfile.Header{Kind: w.Kind, Settings: w.Settings, Echo: echo, Index: w.Shard.Index, Count: w.Shard.Count, Items: w.N}
	lo, hi := shardfile.Slice(w.N, h.Index, h.Count)
	data, err := w.slice(ctx, h, lo, hi)
	if err != nil {
		return err
	}
	return outfile.WriteAll(ctx, stdout, outfile.Output{File: w.Out, Data: data})
}

// Kind is a kind of run Merge merges: Parse parses a run from its flags;
// MergeFlags are the merge flags it takes.
type Kind struct {
	Parse      func(kind string, args []string, stdout, stderr io.Writer) (*Work, error)
	MergeFlags []string
}

// Do parses a run of kind from args and runs it.
func (k Kind) Do(ctx context.Context, kind string, args []string, stdout, stderr io.Writer) error {
	w, err := k.Parse(kind, args, stdout, stderr)
	if err != nil {
		return err
	}
	return w.Do(ctx, stdout)
}

// Merge is retrysim merge of the envelopes of kinds, by kind; handled is
// false, leaving the files to the table's merge, unless the first file is an
// envelope.
func Merge(ctx context.Context, args []string, stdout io.Writer, kinds map[string]Kind) (handled bool, err error) {
	fs := flagval.NewFlagSet("retrysim merge")
	for _, name := range mergeOwn {
		switch name {
		case "log-y", "linear-y", "own-scales", "ci", "expect":
			fs.Bool(name, false, "")
		case "shard", "workers", "help", "h": // no merge flag
		default:
			fs.String(name, "", "")
		}
	}
	if fs.Parse(flagval.Interspersed(fs, args)) != nil || fs.NArg() == 0 || !shardfile.Is(fs.Arg(0)) {
		return false, nil
	}
	files := fs.Args()
	shards, err := shardfile.ReadAll(files)
	if err != nil {
		return true, flagval.Usage(fmt.Errorf("merge: %w", err))
	}
	first := shards[0]
	k, ok := kinds[first.Kind]
	if !ok {
		return true, flagval.Usage(fmt.Errorf("merge: %s: kind %q is no kind of run (want one of %s)", files[0], first.Kind, strings.Join(slices.Sorted(maps.Keys(kinds)), ", ")))
	}
	var own []string
	fs.Visit(func(f *flag.Flag) {
		if err == nil && !slices.Contains(k.MergeFlags, f.Name) {
			err = flagval.Usage(fmt.Errorf("merge: -%s: %s is a %s shard, whose merge takes -%s", f.Name, files[0], first.Kind, strings.Join(k.MergeFlags, ", -")))
		}
		if err == nil && slices.Contains([]string{"o", "series", "plot"}, f.Name) {
			if e := outfile.CheckReading("shard file", files, outfile.File{Flag: f.Name, Path: f.Value.String()}); e != nil {
				err = flagval.Usage(e)
			}
		}
		own = append(own, "-"+f.Name+"="+f.Value.String())
	})
	if err != nil {
		return true, err
	}
	settings, err := settingArgs(first.Header)
	if err != nil {
		return true, flagval.Usage(fmt.Errorf("merge: %s: %w", files[0], err))
	}
	w, err := k.Parse(first.Kind, append(settings, own...), stdout, io.Discard)
	if err != nil {
		return true, flagval.Usage(fmt.Errorf("merge: %s: its settings: %w", files[0], err))
	}
	if w.N != first.Items {
		return true, flagval.Usage(fmt.Errorf("merge: %s: its settings make %d %s, not %d", files[0], w.N, w.Noun, first.Items))
	}
	if echo, err := json.Marshal(w.Echo); err != nil || !shardfile.SameEcho(echo, first.Echo) {
		return true, flagval.Usage(fmt.Errorf("merge: the shards ran with %s, but their settings now make %s (a scenario file changed since?)", shardfile.Compact(first.Echo), echo))
	}
	return true, w.merge(ctx, files, shards)
}

// ScenarioDigest is the sha256 of the scenario file at path (nil for none),
// as a run's echo, so merge refuses shards of a file changed since.
func ScenarioDigest(path string) (any, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, flagval.Usage(fmt.Errorf("-scenario: %w", err))
	}
	sum := sha256.Sum256(data)
	return map[string]string{"scenario_sha256": hex.EncodeToString(sum[:])}, nil
}
