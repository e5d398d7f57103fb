package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	api "github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/stats"
)

const mergeIntro = `retrysim merge adds up the shards of one run, written by retrysim -shard i/n,
and prints exactly what the run would have printed in one piece. Every shard
0/n to n-1/n must be given once, all with the same parameters and seed.

Usage: retrysim merge [flags] FILES... [flags]

Every number in a shard is checked against what one run can produce, and a
file that is not a regular file, or is larger than %d MiB, is refused.

Example: for i in 0 1 2 3; do retrysim -jobs 1e9 -shard $i/4 -o shard-$i.json & done; wait
         retrysim merge shard-*.json -ci

Flags:
`

// mergeCommand reads shard files, checks that they make one whole run, and
// prints the run's report.
func mergeCommand(ctx context.Context, args []string, stdout, _ io.Writer) error {
	var ci, expect bool
	format := flagval.NewFormat(render.ReportDoc)
	out := outfile.File{Flag: "o"}
	fs := newFlagSet("retrysim merge")
	fs.Var(&format, "format", format.Usage())
	fs.BoolVar(&ci, "ci", false, "show 95% intervals in the table (csv and json always carry them)")
	fs.BoolVar(&expect, "expect", false, "show each strategy's closed-form expectations and z-scores")
	fs.StringVar(&out.Path, "o", "", outUsage+"; not one of the shard files")
	if err := parseFlags(fs, interspersed(fs, args), fmt.Sprintf(mergeIntro, stats.MaxShardBytes>>20), stdout); err != nil {
		return err
	}
	if err := outfile.Check(out); err != nil {
		return usageError{err}
	}
	files := fs.Args()
	if len(files) == 0 {
		return usageError{fmt.Errorf("merge: no shard files given (want retrysim merge FILES...)")}
	}
	if err := outfile.NotInput(out, "shard file", files); err != nil {
		return usageError{err}
	}
	var m api.Merger
	for _, f := range files {
		sh, err := api.ReadShard(f)
		if err == nil {
			err = m.Add(f, sh)
		}
		if err != nil {
			return usageError{fmt.Errorf("merge: %w", err)}
		}
	}
	rep, err := m.Report()
	if err != nil {
		return usageError{fmt.Errorf("merge: %w", err)}
	}
	if rep.Params.Delivery != nil && expect {
		return usageError{fmt.Errorf("-expect: the closed forms cover the Part 5 model, not the delivery model these shards ran")}
	}
	return show(ctx, stdout, rep.Results(ci, expect), format.R, out)
}

// interspersed puts the flags of args first and the file names after a "--",
// as fs.Parse wants them: people type merge's flags after the files (merge
// a.json b.json -ci), and Go's flag package stops at the first argument that
// is not a flag. A flag takes the next argument as its value unless it is
// boolean or written -flag=value; every argument after a "--" is a file.
func interspersed(fs *flag.FlagSet, args []string) []string {
	var flags, files []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			files = append(files, args[i+1:]...)
			i = len(args)
		case len(a) < 2 || a[0] != '-': // "-" is a name, as in package flag
			files = append(files, a)
		default:
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if strings.Contains(name, "=") {
				continue
			}
			if f := fs.Lookup(name); f != nil && !isBool(f.Value) {
				if i+1 == len(args) {
					return flags // for fs.Parse to say the value is missing
				}
				i++
				flags = append(flags, args[i])
			}
		}
	}
	return append(append(flags, "--"), files...)
}

// isBool reports whether v is a boolean flag's value, which takes no argument.
func isBool(v flag.Value) bool {
	b, ok := v.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
