package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/tune"
	"github.com/retrysim/retrysim/schema"
)

// TuneFamily are the kinds whose searches run replicates and shard: a
// tune's shard kind is "tune KIND".
func TuneFamily() []string { return []string{"workers", "graph", "fleet"} }

// tuneNotHere are the sweep's flags a search decides or has no use for.
var tuneNotHere = []string{"jobs", "set", "metric", "plot", "series", "shard", "log-y", "linear-y", "own-scales", "ci", "replicates"}

// Tune is a search's own flags (-search, -minimize, -maximize, -budget) as
// parsed from Own, and the kind it searches, whose flags are Rest.
type Tune struct {
	FS                 *flag.FlagSet
	Own, Rest          []string
	Kind               string // "table", or one of TuneFamily, Rest's first word
	Searches           []string
	minimize, maximize string
	budget             flagval.Count
}

// ParseTune parses a search's own flags from args (-help printing help),
// refusing a flag of the kind's that the search decides.
func ParseTune(args []string, help string, stdout io.Writer) (*Tune, error) {
	t := &Tune{FS: flagval.NewFlagSet("retrysim tune"), Kind: "table", budget: 100_000_000}
	fs := t.FS
	fs.Var(flagval.Repeated(func(s string) error { t.Searches = append(t.Searches, s); return nil }), "search",
		"search a setting, `PATH=VALUES`: its path as retrysim sweep -set names it (attempts, steps[STEP].FIELD, the queue's fields with -model delivery), over a list or a range start:stop:count, or an enum's names (the store's: none,claim); repeat for a grid")
	fs.StringVar(&t.minimize, "minimize", "", "the `objective` to minimize: a searched setting's path or a metric (ROW:METRIC with several strategies)")
	fs.StringVar(&t.maximize, "maximize", "", "the `objective` to maximize, as -minimize")
	fs.Var(&t.budget, "budget", "spend at most `n` jobs (the table) or replicates (workers, graph, fleet: up to 1000, as many as the runs' duration allows, unless given) in all, 1 to 10^12")
	var restNames []string // the flag's name of each word of Rest, "" for a value
	for _, a := range flagval.Args(fs, args) {
		if words := args[a.At : a.At+a.N]; a.Name == "help" || a.Name == "h" || fs.Lookup(a.Name) != nil {
			t.Own = append(t.Own, words...)
		} else {
			t.Rest, restNames = append(t.Rest, words...), append(restNames, a.Name)
		}
	}
	if err := flagval.Parse(fs, t.Own, help, stdout); err != nil {
		return nil, err
	}
	family := len(t.Rest) > 0 && slices.Contains(TuneFamily(), t.Rest[0])
	for _, name := range restNames {
		switch {
		case name == "shard" && !family:
			return nil, flagval.Usage(errors.New("-shard: a search of the table does not shard (each candidate's share would be the whole budget of jobs); shard a search of workers, graph or fleet, or run it whole"))
		case name != "shard" && slices.Contains(tuneNotHere, name):
			return nil, flagval.Usage(fmt.Errorf("-%s: retrysim tune decides the work and writes its own output; a search takes no -%s", name, name))
		}
	}
	if family {
		t.Kind, t.Rest = t.Rest[0], t.Rest[1:]
	}
	return t, nil
}

// Search is t's search of k over axes, its rows required to meet reqs,
// planned: a kind of the family spends, unless -budget says, its most.
func (t *Tune) Search(k tune.Kind, axes []tune.Axis, reqs []tune.Requirement) (tune.Search, error) {
	s := tune.Search{Objective: t.minimize, Budget: int64(t.budget), Require: reqs}
	if !flagval.Given(t.FS)["budget"] {
		s.Budget = k.Budget()
	}
	switch {
	case t.minimize != "" && t.maximize != "":
		return s, flagval.Usage(fmt.Errorf("-minimize, -maximize: give one of the two"))
	case t.maximize != "":
		s.Objective, s.Maximize = t.maximize, true
	case t.minimize == "":
		return s, flagval.Usage(fmt.Errorf("-minimize, -maximize: give one, a searched setting or a metric"))
	}
	s.Axes = axes
	if _, _, _, err := tune.Plan(k, s); err != nil {
		return s, TuneError(err)
	}
	return s, nil
}

// Write is how t's answer is written, in out's format to its file or stdout:
// a search that finds none is an error once written.
func (t *Tune) Write(out flagval.Output, stdout io.Writer) func(context.Context, tune.Result) error {
	format := out.Format.R.Name()
	return func(ctx context.Context, res tune.Result) error {
		if err := out.Out.Render(ctx, stdout, func(w io.Writer) error { return tune.Write(w, format, t.Kind, res) }); err != nil {
			return err
		}
		if res.Best < 0 {
			return &tune.NoneError{Result: res}
		}
		return nil
	}
}

// TuneError is a library error of a search's, refused as bad usage naming
// the flag of the part it names (a setting's own refusal by its path).
func TuneError(err error) error {
	return flagval.Usage(FlagError(err, Names{"search.*": "-search: %s", "search": "-search", "objective": "-minimize, -maximize", "require": "-require", "budget": "-budget"},
		func(fe *schema.FieldError) string { return flagval.ModelHint(fe.Msg) }))
}
