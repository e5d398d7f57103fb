package jobcmd

import (
	"runtime"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/internal/cli"
	"github.com/retrysim/retrysim/internal/render"
)

// The table's shared flags start at the defaults -help names (seed 1, the
// first generator, every default strategy, the doc's first format,
// GOMAXPROCS workers shown as such, the auto engine, one replicate of at
// most 10000, stdout) and write where the command reads them.
func TestJobFlags(t *testing.T) {
	j := newJobFlags("table", cli.Usages{Doc: render.ReportDoc, Scenario: "scenario `file`", Shard: "slice `i/n`"})
	if j.Seed != 1 || j.rng.V != "pcg" || strings.Join(j.strategies, ",") != "step-nokey,step-newkey,step-samekey,job-samekey,job-samekey-skip" ||
		j.O.Format.R.Name() != "table" || j.Workers.V != runtime.GOMAXPROCS(0) || j.engine.String() != "auto" || j.O.Out.Path != "" ||
		j.Replicates.V != 1 || j.Replicates.Hi != 10000 || j.ci {
		t.Errorf("defaults = %+v", j)
	}
	if d := j.FS.Lookup("workers").DefValue; d != "GOMAXPROCS" {
		t.Errorf("-workers default shown as %q; want GOMAXPROCS", d)
	}
	args := []string{"-seed", "7", "-rng", "xexp", "-strategies", "job-samekey", "-format", "csv", "-workers", "3", "-engine", "plain", "-o", "out.csv",
		"-replicates", "10000", "-ci", "-scenario", "s.yaml", "-shard", "1/2"}
	if err := j.FS.Parse(args); err != nil {
		t.Fatal(err)
	}
	if j.Seed != 7 || j.rng.V != "xexp" || strings.Join(j.strategies, ",") != "job-samekey" || j.O.Format.R.Name() != "csv" || j.Workers.V != 3 ||
		j.engine.String() != "plain" || j.O.Out.Path != "out.csv" || j.O.Out.Flag != "o" || j.Replicates.V != 10000 || !j.ci ||
		j.Scenario != "s.yaml" || j.Shard.Index != 1 || j.Shard.Count != 2 {
		t.Errorf("after %v: %+v", args, j)
	}
}
