package shardrun

import (
	"flag"
	"fmt"

	"github.com/retrysim/retrysim/internal/flagval"
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
