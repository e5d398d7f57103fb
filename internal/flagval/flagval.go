// Package flagval holds the flag.Value types of retrysim's commands: each
// parses one kind of setting, checks it while parsing with the validator the
// library uses, and names what it accepts when it refuses a value. It parses;
// what a setting does is the library's.
package flagval

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/enum"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/internal/scenariocheck"
	"github.com/retrysim/retrysim/internal/sim"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

// Probability is a flag.Value that accepts only numbers in [0, 1].
type Probability float64

func (p *Probability) String() string { return strconv.FormatFloat(float64(*p), 'g', -1, 64) }

func (p *Probability) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return fmt.Errorf("want a probability in [0, 1], such as 0.01")
	}
	if err := limits.Probability(v); err != nil {
		return err
	}
	*p = Probability(v)
	return nil
}

// Get is the value, for the library's settings (flag.Getter).
func (p *Probability) Get() any { return float64(*p) }

// Count is a flag.Value for a job count: digits with optional _ or , between
// groups (1_000_000), or a power-of-ten form (1e9), from 1 to sim.MaxJobs.
type Count int64

func (c *Count) String() string { return strconv.FormatInt(int64(*c), 10) }

func (c *Count) Set(s string) error {
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
	*c = Count(v)
	return nil
}

// Seed is a flag.Value for any uint64.
type Seed uint64

func (v *Seed) String() string { return strconv.FormatUint(uint64(*v), 10) }

func (v *Seed) Set(s string) error {
	x, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return fmt.Errorf("want a whole number from 0 to %d", uint64(math.MaxUint64))
	}
	*v = Seed(x)
	return nil
}

// named wraps a flag's Value to report a refused value as "-flag: reason"
// and to refuse a flag given twice, unless it is Repeated.
type named struct {
	flag.Value
	name  string
	err   *error
	given bool
}

// String allows the nil receiver, which flag.PrintDefaults makes to find the zero value.
func (n *named) String() string {
	if n == nil || n.Value == nil {
		return ""
	}
	return n.Value.String()
}

// IsBoolFlag keeps boolean flags usable without a value (-ci, not -ci=true).
func (n *named) IsBoolFlag() bool { return isBool(n.Value) }

func (n *named) Set(s string) error {
	var err error
	if _, repeated := n.Value.(Repeated); n.given && !repeated {
		err = errors.New("given twice; give it once")
	} else {
		err = n.Value.Set(s)
	}
	n.given = true
	if err != nil && *n.err == nil {
		*n.err = fmt.Errorf("-%s: %w", n.name, err)
	}
	return err
}

// Get is the wrapped value's, for a flag.Getter.
func (n *named) Get() any {
	if g, ok := n.Value.(flag.Getter); ok {
		return g.Get()
	}
	return nil
}

// NameErrors makes fs report Set errors through *err, a flag given twice
// among them.
func NameErrors(fs *flag.FlagSet, err *error) {
	fs.VisitAll(func(f *flag.Flag) {
		f.Value = &named{Value: f.Value, name: f.Name, err: err}
	})
}

// Repeated is a flag.Value that may be given any number of times (-set).
type Repeated func(string) error

func (r Repeated) Set(s string) error { return r(s) }
func (r Repeated) String() string     { return "" }

// Bounded is a flag.Value for an integer in [Lo, Hi].
type Bounded struct {
	V, Lo, Hi int
}

func (b *Bounded) String() string { return strconv.Itoa(b.V) }

func (b *Bounded) Set(s string) error {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || v < b.Lo || v > b.Hi {
		return fmt.Errorf("want a whole number from %d to %d", b.Lo, b.Hi)
	}
	b.V = v
	return nil
}

func (b *Bounded) Get() any { return b.V }

// Format is -format: one of the formats in render's table that writes
// the command's document, the table's first by default.
type Format struct {
	Doc render.Doc
	R   render.Renderer
}

func NewFormat(d render.Doc) Format {
	r, _ := render.Lookup(d, render.Names(d)[0])
	return Format{Doc: d, R: r}
}

func (f *Format) String() string { return f.R.Name() }

func (f *Format) Set(s string) error {
	r, err := render.Lookup(f.Doc, s)
	if err != nil {
		return err
	}
	f.R = r
	return nil
}

// Choice is a flag.Value that accepts one of a fixed set of names.
type Choice struct {
	V     string
	Valid func(string) error
	Names []string // the valid names, listed when the flag is given without one
}

func (c *Choice) String() string { return c.V }

func (c *Choice) Set(s string) error {
	if err := c.Valid(s); err != nil {
		return err
	}
	c.V = s
	return nil
}

// OneOf is a Choice's Valid for the names given, refusing any other as
// "unknown NOUN %q (want WANT)".
func OneOf(noun, want string, names ...string) func(string) error {
	return func(s string) error {
		if slices.Contains(names, s) {
			return nil
		}
		return fmt.Errorf("unknown %s %q (want %s)", noun, s, want)
	}
}

// ValidRNG refuses a generator name that rng.Lookup does not know.
func ValidRNG(s string) error {
	if _, ok := rng.Lookup(s); !ok {
		return fmt.Errorf("unknown generator %q (want one of %s)", s, rng.Names())
	}
	return nil
}

// StrategiesVar is comma-separated strategy names, each once (a row a
// strategy), writing into *p; they are built once -attempts is known.
func StrategiesVar(p *[]string) flag.Value {
	return ListVar(p, func(s string) (string, error) {
		id := strings.TrimSpace(s)
		_, err := strategy.Parse(id, 1)
		return id, err
	}, func(id string) string { return id })
}

// Shard is a flag.Value for -shard i/n.
type Shard sim.Shard

func (s *Shard) String() string {
	if s == nil || s.Count == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Set reads i/n, or auto/n or auto, taking the index (and for auto the
// count) from the environment as ResolveShard does.
func (s *Shard) Set(v string) error {
	var sh sim.Shard
	if strings.HasPrefix(v, "auto") {
		i, n, err := ResolveShard(v, os.Getenv)
		if err != nil {
			return err
		}
		*s = Shard{Index: i, Count: n}
		return nil
	}
	var rest string
	if k, err := fmt.Sscanf(v, "%d/%d%s", &sh.Index, &sh.Count, &rest); k != 2 || err == nil || sh.Check() != nil {
		return fmt.Errorf("%q is not a slice i/n with 0 <= i < n <= %d, such as 0/8", v, sim.MaxShards)
	}
	*s = Shard(sh)
	return nil
}

// LatencyVar is a fixed duration (20ms) or a lognormal median:p99
// (20ms:200ms), as scenario files check theirs, writing into *p.
func LatencyVar(p *provider.Latency) flag.Value {
	return fieldVar[provider.Latency]{p, func(s string) (provider.Latency, error) {
		bad := fmt.Errorf("want a duration (20ms) or a lognormal median:p99 (20ms:200ms), each from 0 to 8760h, a median above 0 with a p99")
		median, p99, two := strings.Cut(s, ":")
		m, err := time.ParseDuration(median)
		if err != nil {
			return provider.Latency{}, bad
		}
		v := provider.Latency{Median: m}
		if two {
			if v.P99, err = time.ParseDuration(p99); err != nil {
				return v, bad
			}
		}
		return v, scenariocheck.Latency(v)
	}, func(l provider.Latency) string {
		if rng.LognormalDrawn(l.Median, l.P99) {
			return l.Median.String() + ":" + l.P99.String()
		}
		return l.Median.String()
	}}
}

// CrashProbability is -crash: the probability that a worker dies at
// -crash-at, a crash point given to it refused with a pointer there.
type CrashProbability struct{ P Probability }

func (c *CrashProbability) String() string {
	if c == nil {
		return "0"
	}
	return c.P.String()
}

func (c *CrashProbability) Set(s string) error {
	if _, err := enum.Parse[delivery.CrashPoint](s); err == nil || s == "after-charge" {
		return fmt.Errorf("%q is a crash point: give it with -crash-at; -crash is the probability that a worker dies there", s)
	}
	return c.P.Set(s)
}

func (c *CrashProbability) Get() any { return float64(c.P) }

// CrashPoint is -crash-at, in the table command and in race alike, with
// the delivery model's names, and the point it writes, at the model's default.
func CrashPoint() (flag.Value, *delivery.CrashPoint) {
	p := delivery.Defaults().CrashAt
	return NameVar(&p, parseCrashPoint, delivery.CrashPoint.String), &p
}

// parseCrashPoint reads a crash point, naming race's old after-charge's new name.
func parseCrashPoint(s string) (delivery.CrashPoint, error) {
	if s == "after-charge" {
		return 0, fmt.Errorf("unknown crash point %q: it is after-work now (between the work and the key record)", s)
	}
	return enum.Parse[delivery.CrashPoint](s)
}

// Window is a flag.Value for a time window from:to (20s:25s).
type Window struct{ From, To time.Duration }

func (w *Window) String() string {
	if w == nil || w.To == 0 {
		return ""
	}
	return human.Duration(w.From) + ":" + human.Duration(w.To)
}

func (w *Window) Set(s string) error {
	bad := fmt.Errorf("want a window from:to such as 20s:25s, 0 <= from < to")
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return bad
	}
	from, err1 := time.ParseDuration(strings.TrimSpace(a))
	to, err2 := time.ParseDuration(strings.TrimSpace(b))
	if err1 != nil || err2 != nil || from < 0 || to <= from {
		return bad
	}
	*w = Window{From: from, To: to}
	return nil
}

// Values is a flag.Value for a sweep's axis: a value, a list or a range
// (sweep.Parse), each value one the axis takes.
type Values struct {
	// Parse reads the flag's text as the axis's values.
	Parse func(string) ([]float64, error)
	V     []float64
	text  string
}

// NewValues is an axis flag at its default, def, whose text parse reads.
func NewValues(def string, parse func(string) ([]float64, error)) *Values {
	v := &Values{Parse: parse}
	if err := v.Set(def); err != nil {
		panic(err) // a default that does not parse is a programming error
	}
	return v
}

func (v *Values) String() string {
	if v == nil {
		return ""
	}
	return v.text
}

func (v *Values) Set(s string) error {
	vals, err := v.Parse(s)
	if err != nil {
		return err
	}
	v.text, v.V = s, vals
	return nil
}

// Listed reports whether -help lists f: every flag but one NotHere, which
// any use refuses.
func Listed(f *flag.Flag) bool {
	v := f.Value
	if n, ok := v.(*named); ok {
		v = n.Value
	}
	_, notHere := v.(NotHere)
	return !notHere
}

// Group is a heading of -help's list of flags and its flags; one with no
// Flags lists every flag no other group lists.
type Group struct {
	Title string
	Flags []string
}

// PrintGroups lists fs's flags as flag.PrintDefaults does, but naming a
// default only when it says something and wrapping usages to width, under
// the headings of groups when groups is not nil.
func PrintGroups(w io.Writer, fs *flag.FlagSet, groups []Group, width int) {
	if groups == nil {
		fs.VisitAll(func(f *flag.Flag) { printFlag(w, f, width) })
		return
	}
	listed := map[string]bool{}
	for _, g := range groups {
		for _, name := range g.Flags {
			listed[name] = true
		}
	}
	for _, g := range groups {
		fmt.Fprintf(w, "\n%s:\n", g.Title)
		if g.Flags == nil {
			fs.VisitAll(func(f *flag.Flag) {
				if !listed[f.Name] {
					printFlag(w, f, width)
				}
			})
		}
		for _, name := range g.Flags {
			if f := fs.Lookup(name); f != nil {
				printFlag(w, f, width)
			}
		}
	}
}

// printFlag lists f as PrintGroups does, nothing for a flag not Listed.
func printFlag(w io.Writer, f *flag.Flag, width int) {
	if !Listed(f) {
		return // the command's intro lists its old names
	}
	arg, usage := flag.UnquoteUsage(f)
	head := "  -" + f.Name
	if arg != "" {
		head += " " + arg
	}
	switch f.DefValue {
	case "", "false", "0", "0s":
	default:
		usage += " (default " + f.DefValue + ")"
	}
	fmt.Fprintln(w, head)
	for _, para := range strings.Split(usage, "\n") { // its own line breaks kept
		fmt.Fprint(w, human.Wrap(para, "    \t", width-usageIndent+len("    \t")))
	}
}

// usageIndent is the columns before a usage line: four spaces and a tab.
const usageIndent = 8
