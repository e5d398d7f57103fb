package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/results"
	"github.com/retrysim/retrysim/rng"
	"github.com/retrysim/retrysim/sim"
)

const mergeIntro = `retrysim merge adds up the shards of one run, written by retrysim -shard i/n,
and prints exactly what the run would have printed in one piece. Every shard
0/n to n-1/n must be given once, all with the same parameters and seed.

Usage: retrysim merge [flags] FILES...

Example: for i in 0 1 2 3; do retrysim -jobs 1e9 -shard $i/4 -o shard-$i.json & done; wait
         retrysim merge shard-*.json

Flags:
`

// mergeCommand reads shard files, checks that they make one whole run, and
// prints the run's report.
func mergeCommand(_ context.Context, args []string, stdout, _ io.Writer) error {
	var s show
	format := choice{v: results.Formats[0], valid: results.CheckFormat}
	fs := newFlagSet("retrysim merge")
	fs.Var(&format, "format", "output `format`: "+strings.Join(results.Formats, ", "))
	fs.BoolVar(&s.ci, "ci", false, "show 95% intervals in the table (csv and json always carry them)")
	fs.BoolVar(&s.expect, "expect", false, "show each strategy's closed-form expectations and z-scores")
	fs.StringVar(&s.out, "o", "", "write the output to `file`, atomically, instead of stdout")
	if err := parseFlags(fs, args, mergeIntro, stdout); err != nil {
		return err
	}
	s.format = format.v
	if err := checkDir("o", s.out); err != nil {
		return err
	}
	files := fs.Args()
	if len(files) == 0 {
		return usageError{fmt.Errorf("merge: no shard files given (want retrysim merge FILES...)")}
	}
	shards := make([]results.Shard, len(files))
	for i, f := range files {
		sh, err := readShard(f)
		if err != nil {
			return usageError{err}
		}
		shards[i] = sh
	}
	total, err := combine(files, shards)
	if err != nil {
		return usageError{err}
	}
	p, err := pointOf(total.Params, total.Rows)
	if err != nil {
		return usageError{fmt.Errorf("merge: %s: %w", files[0], err)}
	}
	return s.write(stdout, p, total.Rows, 1)
}

// readShard decodes one shard file strictly: an unknown field is an error.
func readShard(path string) (results.Shard, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return results.Shard{}, fmt.Errorf("merge: %w", err)
	}
	var sh results.Shard
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sh); err != nil {
		return sh, fmt.Errorf("merge: %s is not a retrysim shard: %v", path, err)
	}
	if sh.Format != results.ShardFormat || sh.Count < 1 || sh.Index < 0 || sh.Index >= sh.Count {
		return sh, fmt.Errorf("merge: %s is not a retrysim shard (format %d, shard %d/%d)", path, sh.Format, sh.Index, sh.Count)
	}
	return sh, nil
}

// combine checks that shards are the slices 0..n-1 of one run, each once, and
// adds up their counters.
func combine(files []string, shards []results.Shard) (results.Shard, error) {
	first := shards[0]
	seen := make(map[int]string)
	for i, sh := range shards {
		if sh.Count != first.Count {
			return sh, fmt.Errorf("merge: %s is shard %d/%d but %s is of %d shards", files[i], sh.Index, sh.Count, files[0], first.Count)
		}
		if sh.Params != first.Params {
			return sh, fmt.Errorf("merge: %s and %s are shards of different runs: %s", files[0], files[i], paramDiff(first.Params, sh.Params))
		}
		if !slices.EqualFunc(sh.Rows, first.Rows, func(a, b results.Row) bool { return a.ID == b.ID }) {
			return sh, fmt.Errorf("merge: %s and %s ran different strategies", files[0], files[i])
		}
		if other, dup := seen[sh.Index]; dup {
			return sh, fmt.Errorf("merge: shard %d/%d is given twice: %s and %s", sh.Index, sh.Count, other, files[i])
		}
		seen[sh.Index] = files[i]
	}
	var missing []string
	for i := range first.Count {
		if _, ok := seen[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, first.Count))
		}
	}
	if len(missing) > 0 {
		return first, fmt.Errorf("merge: shards %s are missing", strings.Join(missing, ", "))
	}
	total := first
	total.Rows = slices.Clone(first.Rows)
	for i := range total.Rows {
		total.Rows[i].Counters = results.Counters{}
		for _, sh := range shards {
			total.Rows[i].Counters.Add(sh.Rows[i].Counters)
		}
	}
	if got := total.Rows[0].Jobs; got != total.Params.Jobs {
		return total, fmt.Errorf("merge: the shards hold %d jobs but the run has %d", got, total.Params.Jobs)
	}
	return total, nil
}

// paramDiff names the first parameter in which two shards differ.
func paramDiff(a, b results.Params) string {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	var ma, mb map[string]any
	json.Unmarshal(ja, &ma)
	json.Unmarshal(jb, &mb)
	keys := make([]string, 0, len(ma))
	for k := range ma {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if fmt.Sprint(ma[k]) != fmt.Sprint(mb[k]) {
			return fmt.Sprintf("%s is %v in one and %v in the other", k, ma[k], mb[k])
		}
	}
	return "their parameters differ"
}

// pointOf rebuilds the point a shard file describes.
func pointOf(p results.Params, rows []results.Row) (point, error) {
	gen, ok := rng.Lookup(p.RNG)
	if !ok {
		return point{}, fmt.Errorf("unknown generator %q", p.RNG)
	}
	var engine sim.Engine
	if err := (&engineFlag{&engine}).Set(p.Engine); err != nil {
		return point{}, err
	}
	pt := point{jobs: p.Jobs, pFail: p.PFail, lostReply: p.LostReply, attempts: p.Attempts, seed: p.Seed, gen: gen, engine: engine,
		sc: provider.Signup(p.PFail, p.LostReply)}
	for _, r := range rows {
		pt.strategies = append(pt.strategies, r.ID)
	}
	if _, _, err := pt.build(); err != nil {
		return point{}, err
	}
	return pt, nil
}
