package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"
	"syscall"

	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/sim"
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
	var s show
	format := newFormatFlag(render.ReportDoc)
	fs := newFlagSet("retrysim merge")
	fs.Var(&format, "format", format.usage())
	fs.BoolVar(&s.ci, "ci", false, "show 95% intervals in the table (csv and json always carry them)")
	fs.BoolVar(&s.expect, "expect", false, "show each strategy's closed-form expectations and z-scores")
	s.out.flag = "o"
	fs.StringVar(&s.out.path, "o", "", outUsage+"; not one of the shard files")
	if err := parseFlags(fs, interspersed(fs, args), fmt.Sprintf(mergeIntro, stats.MaxShardBytes>>20), stdout); err != nil {
		return err
	}
	s.format = format.r
	if err := checkOutputs(s.out); err != nil {
		return err
	}
	files := fs.Args()
	if len(files) == 0 {
		return usageError{fmt.Errorf("merge: no shard files given (want retrysim merge FILES...)")}
	}
	if err := checkNotInput(s.out, files); err != nil {
		return err
	}
	var m merger
	for _, f := range files {
		sh, err := readShard(f)
		if err != nil {
			return usageError{err}
		}
		if err := m.add(f, sh); err != nil {
			return usageError{err}
		}
	}
	total, cfg, err := m.result()
	if err != nil {
		return usageError{err}
	}
	p, err := pointOf(cfg, total)
	if err != nil {
		return usageError{fmt.Errorf("merge: %s: %w", m.first, err)}
	}
	if p.queue != nil && s.expect {
		return usageError{fmt.Errorf("-expect: the closed forms cover the Part 5 model, not the delivery model these shards ran")}
	}
	return s.write(ctx, stdout, p, total.Rows, 1)
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

// checkNotInput refuses an -o that is one of the files merge reads, by name
// or as the same file under another name (a link, another spelling): writing
// the output would destroy that shard.
func checkNotInput(out outFile, files []string) error {
	d, err := out.check()
	if err != nil {
		return err
	}
	for _, f := range files {
		if sameFile(d, dest{path: f}) {
			return usageError{fmt.Errorf("-o: %s is the shard file %s; writing the output there would destroy it", out.path, f)}
		}
	}
	return nil
}

// readShard reads one shard file (stats.ReadShard). It refuses at once a
// file that is not a regular one: a FIFO would block, a device never end.
// The file is opened without blocking, so a FIFO with no writer is seen as
// such rather than waited on.
func readShard(path string) (stats.Shard, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return stats.Shard{}, fmt.Errorf("merge: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return stats.Shard{}, fmt.Errorf("merge: %w", err)
	}
	if !info.Mode().IsRegular() {
		return stats.Shard{}, fmt.Errorf("merge: %s: not a regular file (%s); a shard is a file written by retrysim -shard", path, fileKind(info.Mode()))
	}
	sh, err := stats.ReadShard(f)
	if err != nil {
		return sh, fmt.Errorf("merge: %s: %w", path, err)
	}
	return sh, nil
}

// fileKind names what a file that is not a regular one is.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}

// merger adds up shards one at a time, checking each (sim.ShardConfig) and
// that they are the slices 0..n-1 of one run, each once. It keeps the sums and
// which slices it has seen, not the shards.
type merger struct {
	first string // the first file, which the others are compared with
	total stats.Shard
	cfg   sim.Config
	seen  map[int]string // file by slice
}

// add checks the shard read from file and adds its counters.
func (m *merger) add(file string, sh stats.Shard) error {
	cfg, err := sim.ShardConfig(sh)
	if err != nil {
		return fmt.Errorf("merge: %s: %w", file, err)
	}
	if m.seen == nil {
		m.first, m.cfg, m.seen = file, cfg, make(map[int]string)
		m.total = sh
		m.total.Rows = slices.Clone(sh.Rows)
		for i := range m.total.Rows {
			m.total.Rows[i].Counters = stats.Counters{}
		}
	}
	first := m.total
	switch {
	case sh.Count != first.Count:
		return fmt.Errorf("merge: %s is shard %d/%d but %s is of %d shards", file, sh.Index, sh.Count, m.first, first.Count)
	case !reflect.DeepEqual(sh.Params, first.Params):
		return fmt.Errorf("merge: %s and %s are shards of different runs: %s", m.first, file, paramDiff(first.Params, sh.Params))
	case !reflect.DeepEqual(sh.Model, first.Model):
		return fmt.Errorf("merge: %s and %s are shards of different runs: their models (scenario steps, watched steps or queue) differ", m.first, file)
	case !slices.EqualFunc(sh.Rows, first.Rows, func(a, b stats.Row) bool { return a.ID == b.ID }):
		return fmt.Errorf("merge: %s and %s ran different strategies", m.first, file)
	}
	if other, dup := m.seen[sh.Index]; dup {
		return fmt.Errorf("merge: shard %d/%d is given twice: %s and %s", sh.Index, sh.Count, other, file)
	}
	m.seen[sh.Index] = file
	for i := range m.total.Rows {
		if err := m.total.Rows[i].Counters.AddChecked(sh.Rows[i].Counters); err != nil {
			return fmt.Errorf("merge: %s: rows[%d].%w", file, i, err)
		}
	}
	return nil
}

// maxMissing is how many missing slices an error lists.
const maxMissing = 10

// result is the merged run and its configuration, once every slice is in.
func (m *merger) result() (stats.Shard, sim.Config, error) {
	var missing []string
	for i := range m.total.Count {
		if _, ok := m.seen[i]; !ok {
			if len(missing) == maxMissing {
				missing = append(missing, "...")
				break
			}
			missing = append(missing, fmt.Sprintf("%d/%d", i, m.total.Count))
		}
	}
	if len(missing) > 0 {
		return m.total, m.cfg, fmt.Errorf("merge: shards %s are missing (%d of %d given)", strings.Join(missing, ", "), len(m.seen), m.total.Count)
	}
	for i, r := range m.total.Rows {
		if r.Jobs != m.total.Jobs {
			return m.total, m.cfg, fmt.Errorf("merge: rows[%d]: the shards hold %d jobs but the run has %d", i, r.Jobs, m.total.Jobs)
		}
	}
	return m.total, m.cfg, nil
}

// paramDiff names the first parameter in which two shards differ.
func paramDiff(a, b stats.Params) string {
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

// pointOf rebuilds the point of a merged run from its configuration, which
// sim.ShardConfig checked.
func pointOf(cfg sim.Config, sh stats.Shard) (point, error) {
	p := sh.Params
	pt := point{jobs: p.Jobs, pFail: p.PFail, lostReply: p.LostReply, attempts: p.Attempts, seed: p.Seed,
		gen: cfg.Generator, engine: cfg.Engine, sc: cfg.Scenario, file: p.File, queue: cfg.Delivery, overrides: p.Overrides}
	for _, r := range sh.Rows {
		pt.strategies = append(pt.strategies, r.ID)
	}
	if _, _, err := pt.build(); err != nil {
		return point{}, err
	}
	// The report's parameters come from the point: they must be the ones the
	// shards echo, or the merged output would say what no shard ran.
	want, _ := json.Marshal(pt.params(1))
	got, _ := json.Marshal(p)
	if !bytes.Equal(got, want) {
		return point{}, fmt.Errorf("the parameters are not the model's: %s", paramDiff(pt.params(1), p))
	}
	return pt, nil
}
