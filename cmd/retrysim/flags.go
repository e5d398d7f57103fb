package main

import (
	"flag"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/internal/sim"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

// probability is a flag.Value that accepts only numbers in [0, 1].
type probability float64

func (p *probability) String() string { return strconv.FormatFloat(float64(*p), 'g', -1, 64) }

func (p *probability) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return fmt.Errorf("want a probability in [0, 1], such as 0.01")
	}
	if err := provider.CheckProbability(v); err != nil {
		return err
	}
	*p = probability(v)
	return nil
}

// count is a flag.Value for a job count: digits with optional _ or , between
// groups (1_000_000), or a power-of-ten form (1e9), from 1 to sim.MaxJobs.
type count int64

func (c *count) String() string { return strconv.FormatInt(int64(*c), 10) }

func (c *count) Set(s string) error {
	bad := fmt.Errorf("want a whole number from 1 to %d, such as 1000000, 1_000_000 or 1e6", int64(sim.MaxJobs))
	clean := strings.NewReplacer("_", "", ",", "").Replace(strings.TrimSpace(s))
	v, err := strconv.ParseInt(clean, 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(clean, 64)
		if ferr != nil || f != math.Trunc(f) || f > sim.MaxJobs {
			return bad
		}
		v = int64(f)
	}
	if sim.CheckJobs(v) != nil {
		return bad
	}
	*c = count(v)
	return nil
}

// seed is a flag.Value for any uint64.
type seed uint64

func (v *seed) String() string { return strconv.FormatUint(uint64(*v), 10) }

func (v *seed) Set(s string) error {
	x, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return fmt.Errorf("want a whole number from 0 to %d", uint64(math.MaxUint64))
	}
	*v = seed(x)
	return nil
}

// named wraps a flag's Value so that a refused value is reported as
// "-flag: reason", which flag's own "invalid value ... for flag" wording buries.
type named struct {
	flag.Value
	name string
	err  *error
}

// String allows the nil receiver, which flag.PrintDefaults makes to find the zero value.
func (n *named) String() string {
	if n == nil || n.Value == nil {
		return ""
	}
	return n.Value.String()
}

// IsBoolFlag keeps boolean flags usable without a value (-ci, not -ci=true).
func (n *named) IsBoolFlag() bool {
	b, ok := n.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

func (n *named) Set(s string) error {
	err := n.Value.Set(s)
	if err != nil && *n.err == nil {
		*n.err = fmt.Errorf("-%s: %w", n.name, err)
	}
	return err
}

// nameErrors makes fs report Set errors through *err.
func nameErrors(fs *flag.FlagSet, err *error) {
	fs.VisitAll(func(f *flag.Flag) {
		f.Value = &named{f.Value, f.Name, err}
	})
}

// bounded is a flag.Value for an integer in [lo, hi].
type bounded struct {
	v, lo, hi int
}

func (b *bounded) String() string { return strconv.Itoa(b.v) }

func (b *bounded) Set(s string) error {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || v < b.lo || v > b.hi {
		return fmt.Errorf("want a whole number from %d to %d", b.lo, b.hi)
	}
	b.v = v
	return nil
}

// formatFlag is -format: one of the formats in render's table that writes
// the command's document, the table's first by default.
type formatFlag struct {
	doc render.Doc
	r   render.Renderer
}

func newFormatFlag(d render.Doc) formatFlag {
	r, _ := render.Lookup(d, render.Names(d)[0])
	return formatFlag{d, r}
}

func (f *formatFlag) String() string { return f.r.Name() }

func (f *formatFlag) Set(s string) error {
	r, err := render.Lookup(f.doc, s)
	if err != nil {
		return err
	}
	f.r = r
	return nil
}

// usage is the flag's help: the formats it takes.
func (f *formatFlag) usage() string {
	return "output `format`: " + strings.Join(render.Names(f.doc), ", ")
}

// choice is a flag.Value that accepts one of a fixed set of names.
type choice struct {
	v     string
	valid func(string) error
}

func (c *choice) String() string { return c.v }

func (c *choice) Set(s string) error {
	if err := c.valid(s); err != nil {
		return err
	}
	c.v = s
	return nil
}

func validRNG(s string) error {
	if _, ok := rng.Lookup(s); !ok {
		return fmt.Errorf("unknown generator %q (want one of %s)", s, rng.Names())
	}
	return nil
}

// strategyList is a flag.Value for comma-separated strategy names. Names are
// kept as given and built once -attempts is known.
type strategyList []string

func (l *strategyList) String() string { return strings.Join(*l, ",") }

func (l *strategyList) Set(s string) error {
	var ids []string
	for id := range strings.SplitSeq(s, ",") {
		id = strings.TrimSpace(id)
		if _, err := strategy.Parse(id, 1); err != nil {
			return err
		}
		// A row a strategy: a name given twice would print the same row
		// twice, and unbounded repeats would multiply a sweep's rows.
		if slices.Contains(ids, id) {
			return fmt.Errorf("%q is listed twice", id)
		}
		ids = append(ids, id)
	}
	*l = ids
	return nil
}

// engineFlag is a flag.Value for -engine.
type engineFlag struct{ e *sim.Engine }

func (f *engineFlag) String() string {
	if f == nil || f.e == nil {
		return ""
	}
	return f.e.String()
}

func (f *engineFlag) Set(s string) error {
	e, err := sim.ParseEngine(s)
	if err != nil {
		return err
	}
	*f.e = e
	return nil
}

// shard is a flag.Value for -shard i/n.
type shard sim.Shard

func (s *shard) String() string {
	if s == nil || s.Count == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

func (s *shard) Set(v string) error {
	var sh sim.Shard
	var rest string
	if k, err := fmt.Sscanf(v, "%d/%d%s", &sh.Index, &sh.Count, &rest); k != 2 || err == nil || sh.Check() != nil {
		return fmt.Errorf("%q is not a slice i/n with 0 <= i < n <= %d, such as 0/8", v, sim.MaxShards)
	}
	*s = shard(sh)
	return nil
}
