package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/internal/flagval"
)

// flagsOf is the FlagSet command lists under -help.
func flagsOf(t *testing.T, command string) *flag.FlagSet {
	t.Helper()
	var help flagval.HelpError
	if err := commands[command].run(context.Background(), []string{"-help"}, io.Discard, io.Discard); !errors.As(err, &help) {
		t.Fatalf("%s -help returned %v; want a flagval.HelpError", command, err)
	}
	return help.Flags
}

// sweepOnly are the flags of the table command sweep refuses, with the
// reason it gives.
var sweepOnly = map[string]string{
	"expect": "-expect: a sweep shows no closed forms; run retrysim -expect at a point of it",
	"preset": "-preset: a preset runs its own cases, not a grid; run retrysim -preset",
}

// Every flag of the table command is one of sweep's, or refused by sweep
// with one line saying why and exit 2: never Go's bare "flag provided but
// not defined" (sweep had no -store, -replicates or -ci before).
func TestSweepTakesTheTableFlags(t *testing.T) {
	sweep := flagsOf(t, "sweep")
	flagsOf(t, "table").VisitAll(func(f *flag.Flag) {
		if !flagval.Listed(f) {
			return
		}
		if want, refused := sweepOnly[f.Name]; refused {
			for _, arg := range []string{"-" + f.Name, "-" + f.Name + "=x"} {
				out, errOut, code := retrysim(t, "sweep", "-jobs", "100", arg)
				if code != 2 || out != "" || errOut != "retrysim: "+want+"\n" {
					t.Errorf("sweep %s: exit %d, stdout %q, stderr %q; want 2 and %q", arg, code, out, errOut, want)
				}
			}
			return
		}
		if sweep.Lookup(f.Name) == nil {
			t.Errorf("-%s: the table command's flag is not sweep's", f.Name)
		}
	})
}

// The table's flags parse and refuse in sweep as in the table command,
// with the same one line and exit 2: the registration is shared.
func TestSweepTableFlagErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-store", "sometimes"}, "-store:"},
		{[]string{"-ttl", "1x"}, "-ttl:"},
		{[]string{"-replicates", "0"}, "-replicates: want a whole number from 1 to 10000"},
		{[]string{"-model", "fast"}, "-model: want auto, job or delivery"},
		{[]string{"-ttl", "1h"}, "-ttl: only the delivery model reads it; add -model delivery"},
		{[]string{"-model", "delivery", "-lease", "5s"}, "-lease: only the lease store takes a lease; the store is none"},
		{[]string{"-model", "delivery", "-max-deliveries", "0"}, "-max-deliveries:"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, table, tcode := retrysim(t, append([]string{"-jobs", "100"}, tt.args...)...)
			out, errOut, code := retrysim(t, append([]string{"sweep", "-jobs", "100"}, tt.args...)...)
			if code != 2 || tcode != 2 || out != "" || errOut != table || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "retrysim: "+tt.want) {
				t.Errorf("sweep: exit %d, stdout %q, stderr %q; table: exit %d, stderr %q; want both 2 and the same one line starting %q",
					code, out, errOut, tcode, table, tt.want)
			}
		})
	}
	// A setting given both as a flag and as an axis is refused, not dropped.
	_, errOut, code := retrysim(t, "sweep", "-jobs", "100", "-scenario", "../../examples/signup-queue.yaml", "-ttl", "2h", "-set", "queue.ttl=1h,3h")
	if want := "retrysim: -ttl: -set queue.ttl varies it; give one of the two\n"; code != 2 || errOut != want {
		t.Errorf("-ttl with -set queue.ttl: exit %d, %q; want 2, %q", code, errOut, want)
	}
	// A metric of the delivery model in a sweep of the job model.
	_, errOut, code = retrysim(t, "sweep", "-jobs", "100", "-metric", "lost_work")
	if want := "retrysim: -metric: lost_work is counted by the delivery model only; this sweep runs the job model\n"; code != 2 || errOut != want {
		t.Errorf("-metric lost_work in the job model: exit %d, %q; want 2, %q", code, errOut, want)
	}
}

// A sweep's row is the table command's row at its point, for the columns
// the table has and sweep had not: the delivery model's (lost work,
// deliveries, times), the queue's flags and -replicates; and a TTL is
// printed as written.
func TestSweepQueueColumns(t *testing.T) {
	file := "../../examples/signup-queue.yaml"
	common := []string{"-scenario", file, "-jobs", "3000", "-strategies", "step-samekey,job-samekey-skip", "-repeat-delay", "36h", "-replicates", "2", "-workers", "2"}
	out, errOut, code := retrysim(t, append([]string{"sweep", "-set", "queue.ttl=1h,72h", "-format", "csv"}, common...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	sweepRows := readCSV(t, out)
	for i, ttl := range []string{"1h", "72h"} {
		table, errOut, code := retrysim(t, append([]string{"-ttl", ttl, "-format", "csv"}, common...)...)
		if code != 0 {
			t.Fatalf("-ttl %s: exit %d: %s", ttl, code, errOut)
		}
		tableRows := readCSV(t, table)
		// The sweep's axes, then the table's columns but the steps'
		// parameters, which sweep's csv does not carry.
		n := slices.Index(tableRows[0], "step_1_p_fail")
		if want := append([]string{"attempts", "queue.ttl", "queue.ttl_seconds"}, tableRows[0][:n]...); !slices.Equal(sweepRows[0], want) {
			t.Fatalf("sweep csv header\n%v\nwant\n%v", sweepRows[0], want)
		}
		for _, col := range []string{"lost_work", "deliveries", "completion_p99", "failed_rate_sd"} {
			if !slices.Contains(sweepRows[0], col) {
				t.Errorf("sweep csv has no column %s", col)
			}
		}
		for k := range 2 {
			want := append([]string{"3", ttl, map[string]string{"1h": "3600", "72h": "259200"}[ttl]}, tableRows[1+k][:n]...)
			if got := sweepRows[1+2*i+k]; !slices.Equal(got, want) {
				t.Errorf("sweep row at -ttl %s\n%v\nwant the table's\n%v", ttl, got, want)
			}
		}
	}
	pivot, errOut, code := retrysim(t, append([]string{"sweep", "-set", "queue.ttl=1h,24h,72h", "-metric", "lost_work"}, common...)...)
	if code != 0 {
		t.Fatalf("-metric lost_work: exit %d: %s", code, errOut)
	}
	for _, ttl := range []string{"│        1h │", "│       24h │", "│       72h │"} {
		if !strings.Contains(pivot, ttl) {
			t.Errorf("pivot\n%s\nhas no row %q", pivot, ttl)
		}
	}
	if strings.Contains(pivot, "3600") || !strings.HasPrefix(pivot, "Share of jobs whose work was lost silently; ") {
		t.Errorf("pivot\n%s\nwant the lost work, TTLs as written", pivot)
	}
	svg := t.TempDir() + "/ttl.svg"
	if _, errOut, code := retrysim(t, append([]string{"sweep", "-set", "queue.ttl=1h,24h,72h", "-metric", "completion_p99", "-plot", svg, "-o", os.DevNull}, common...)...); code != 0 {
		t.Fatalf("-plot: exit %d: %s", code, errOut)
	}
	pic, _ := os.ReadFile(svg)
	for _, tick := range []string{">1h<", ">24h<", ">72h<"} {
		if !strings.Contains(string(pic), tick) {
			t.Errorf("the plot has no tick %s", tick)
		}
	}
}

// sweep warns as the table does when the queue's settings cannot hold
// (TestLeaseLivelockWarnsAndCountsCalls): the same line on stderr.
func TestSweepWarnsAsTheTable(t *testing.T) {
	args := []string{"-model", "delivery", "-strategies", "step-nokey", "-p-fail", "0", "-lost-reply", "0", "-store", "lease",
		"-lease", "20ms", "-visibility", "30ms", "-latency", "50ms", "-jobs", "200", "-format", "json"}
	_, table, code := retrysim(t, args...)
	_, sweep, code2 := retrysim(t, append([]string{"sweep"}, args...)...)
	if code != 0 || code2 != 0 || sweep != table || !strings.HasPrefix(sweep, "retrysim: warning: lease 20ms") {
		t.Errorf("sweep: exit %d, stderr %q; table: exit %d, stderr %q; want 0 and the same warning", code2, sweep, code, table)
	}
}

// Every watched step is a metric by its name, the table's column for it:
// the pivot's cell is the table's count of checkouts with two receipts over
// the jobs, titled with the column's label.
func TestSweepWatchedStepMetric(t *testing.T) {
	file := "../../examples/checkout.yaml"
	table, errOut, code := retrysim(t, "-scenario", file, "-jobs", "20000", "-strategies", "step-nokey,job-nokey", "-format", "csv")
	if code != 0 {
		t.Fatalf("table: exit %d: %s", code, errOut)
	}
	recs := readCSV(t, table)
	twice, err := strconv.ParseInt(recs[2][slices.Index(recs[0], "duplicate_users_step_4")], 10, 64)
	if err != nil || twice == 0 {
		t.Fatalf("the table's duplicate_users_step_4: %d, %v; want some", twice, err)
	}
	pivot, errOut, code := retrysim(t, "sweep", "-scenario", file, "-jobs", "20000", "-strategies", "step-nokey,job-nokey", "-metric", "steps[send the receipt].duplicate_rate")
	if code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, errOut)
	}
	lines := strings.Split(pivot, "\n")
	cells := strings.Split(lines[4], "│")
	got, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(cells[2]), "%"), 64)
	if !strings.HasPrefix(lines[0], "Checkouts with 2+ receipts, share of jobs; ") || err != nil || math.Abs(got-float64(twice)/200) > 0.0005*got {
		t.Errorf("pivot\n%s\nwant the receipts' column titled and %d/20000 = %v%%", pivot, twice, float64(twice)/200)
	}
}

// A scenario's step policy no strategy reads is refused by sweep as by the
// table, naming the file's line.
func TestSweepRefusesUnreadStepPolicy(t *testing.T) {
	args := []string{"-scenario", "../../examples/checkout.yaml", "-jobs", "100", "-strategies", "job-nokey"}
	_, table, code := retrysim(t, args...)
	_, sweep, code2 := retrysim(t, append([]string{"sweep"}, args...)...)
	if code != 2 || code2 != 2 || sweep != table || !strings.Contains(sweep, "checkout.yaml:15: steps[0].attempts") {
		t.Errorf("sweep: exit %d, %q; table: exit %d, %q; want 2 and the same line", code2, sweep, code, table)
	}
}
