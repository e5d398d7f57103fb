package flagval

import (
	"flag"
	"fmt"
	"runtime"
	"strings"

	api "github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/strategy"
)

// Common are the flags every simulating command shares: what draws the
// jobs, which strategies run, and where and how the output is written.
type Common struct {
	Seed       Seed
	RNG        Choice
	Strategies Strategies
	Workers    Bounded
	Engine     Engine
	Output
}

// Output is the pair of flags every command writes its output through:
// -format, which renderer, and -o, where.
type Output struct {
	Format Format
	Out    outfile.File
}

// outUsage is every command's -o usage.
const outUsage = "write the output to `file` instead of stdout: a regular file is replaced atomically (keeping its mode), a symbolic link's target likewise, a device or FIFO is written in place"

// Register declares -format, taking the formats that write doc, and -o on
// fs; formatNote and outNote, when not empty, end their usage with what the
// command adds (what its json also holds, which files -o may not be).
func (o *Output) Register(fs *flag.FlagSet, doc render.Doc, formatNote, outNote string) {
	*o = Output{Format: NewFormat(doc), Out: outfile.File{Flag: "o"}}
	fs.Var(&o.Format, "format", o.Format.Usage()+formatNote)
	fs.StringVar(&o.Out.Path, "o", "", outUsage+outNote)
}

// Register declares the shared flags on fs with their defaults, -format
// taking the formats that write doc.
func (c *Common) Register(fs *flag.FlagSet, doc render.Doc) {
	*c = Common{
		Seed:       api.DefaultSeed,
		RNG:        Choice{V: rng.Generators()[0].Name, Valid: ValidRNG},
		Strategies: Strategies(strategy.DefaultIDs()),
		Workers:    Bounded{V: runtime.GOMAXPROCS(0), Lo: 1, Hi: 4096},
	}
	fs.Var(&c.Seed, "seed", "random `seed`; the same flags and seed print the same bytes")
	gens := make([]string, len(rng.Generators()))
	for i, g := range rng.Generators() {
		gens[i] = fmt.Sprintf("%s: %s", g.Name, g.Doc)
	}
	fs.Var(&c.RNG, "rng", "random `generator`: "+strings.Join(gens, "; "))
	fs.Var(&c.Strategies, "strategies", "comma-separated strategy `names`, each once, each scope-keys[-skip] with scope step or job and keys nokey, newkey or samekey")
	fs.Var(&c.Workers, "workers", fmt.Sprintf("parallel `workers`, %d to %d; the output does not depend on it", c.Workers.Lo, c.Workers.Hi))
	fs.Lookup("workers").DefValue = "GOMAXPROCS" // not this machine's count
	fs.Var(&c.Engine, "engine", "the `engine` that draws the jobs: auto (skip where allowed), plain (every draw of every job), or skip (only the jobs where something happens; not with mulberry32)")
	c.Output.Register(fs, doc, "", "")
}
