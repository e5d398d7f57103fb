package shardrun

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/tune"
)

// NoRequire says why a run that writes a shard takes no -require.
const NoRequire = "-shard writes raw json for merge and judges nothing; give -require to the whole run"

// RegisterRequire declares -require for rows each of which is a row's
// (a strategy's, a run's).
func RegisterRequire(fs *flag.FlagSet, reqs *[]tune.Requirement, row string) {
	fs.Var(flagval.Repeated(func(s string) error {
		r, err := tune.ParseRequirement(s)
		*reqs = append(*reqs, r)
		return err
	}), "require", "after writing the output, exit 3 unless `'METRIC OP VALUE'` holds on every row's 95% interval (OP <=, <, >=, >, ==; ROW:METRIC for one "+row+" row), a line each on stderr for those that fail or are undecided; repeat for several")
}

// CheckRequire refuses, before any work, a requirement on a metric or a row
// the run does not print.
func CheckRequire(reqs []tune.Requirement, metrics, rows []string) error {
	for _, r := range reqs {
		if err := r.Check(metrics, rows); err != nil {
			return flagval.Usage(fmt.Errorf("-require %w", err))
		}
	}
	return nil
}

// WriteJudged writes outs, the first (-o's, or stdout) always and the others
// when their files are given, then judges reqs over the rows written.
func WriteJudged(ctx context.Context, stdout io.Writer, reqs []tune.Requirement, rows func() []tune.Row, outs ...outfile.Output) error {
	outs = append(outs[:1], slices.DeleteFunc(outs[1:], func(o outfile.Output) bool { return o.File.Path == "" })...)
	if err := outfile.WriteAll(ctx, stdout, outs...); err != nil || len(reqs) == 0 {
		return err
	}
	return tune.Enforce(reqs, rows())
}
