package main

import (
	"io"

	"github.com/retrysim/retrysim/internal/cli"
	"github.com/retrysim/retrysim/internal/shardrun"
)

// parseChain parses the chain command's flags into its run: its splitting
// runs and crude replicates the items, none without a splitting.
func parseChain(kind string, args []string, stdout, _ io.Writer) (*shardrun.Work, error) {
	r := cli.New(kind, cli.Usages{Plain: true, Seed: "random `seed` of the splitting; the same flags and seed print the same bytes",
		Workers: "parallel `workers`, each running splittings, %d to %d; the output does not depend on it",
		Shard:   "run slice `i/n` of the splitting runs (0 <= i < n), or auto/n or auto (index, and count, from the environment), and write it as a shard for retrysim merge"}, 1)
	return cli.Chain(r, args, helpText("chain"), stdout)
}
