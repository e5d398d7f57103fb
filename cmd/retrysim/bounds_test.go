package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/scenario"
	"github.com/retrysim/retrysim/internal/sweep"
)

// Grids and replicates past their limits are refused at once, with exit 2
// and the flags at fault named; the largest accepted ones run.
func TestLimitsRefusedBeforeWork(t *testing.T) {
	all := "step-nokey,step-nokey-skip,step-newkey,step-newkey-skip,step-samekey,step-samekey-skip,job-nokey,job-nokey-skip,job-newkey,job-newkey-skip,job-samekey,job-samekey-skip"
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"sweep", "-p-fail", "0:1:10000", "-lost-reply", "0:1:10000"},
			"retrysim: -p-fail x -lost-reply: 10000 x 10000 = 100000000 points is more than the 10000 a sweep allows"},
		{[]string{"sweep", "-p-fail", "0:1:101", "-lost-reply", "0:1:100", "-jobs", "1"},
			"retrysim: -p-fail x -lost-reply: 101 x 100 = 10100 points is more than the 10000 a sweep allows"},
		{[]string{"sweep", "-p-fail", "0:1:5000", "-jobs", "1", "-strategies", all},
			"retrysim: -strategies: 5000 points x 12 strategies = 60000 rows is more than the 50000 a sweep allows"},
		{[]string{"-replicates", "10001", "-jobs", "1"}, "retrysim: -replicates: want a whole number from 1 to 10000"},
		{[]string{"-strategies", "step-nokey,step-nokey", "-jobs", "1"}, `retrysim: -strategies: "step-nokey" is listed twice`},
	}
	for _, tt := range tests {
		_, errOut, code := retrysim(t, tt.args...)
		if code != flagval.ExitUsage || strings.TrimSpace(errOut) != tt.want {
			t.Errorf("retrysim %s: exit %d, %q; want exit 2, %q", strings.Join(tt.args, " "), code, errOut, tt.want)
		}
	}
	// The largest grid, 10,000 points and 50,000 rows, runs. On Linux
	// TestPeakRSS runs this very sweep (on one worker), where it also bounds
	// its memory, so it is not run twice.
	if runtime.GOOS == "linux" {
		return
	}
	if _, errOut, code := retrysim(t, "sweep", "-p-fail", "0:1:100", "-lost-reply", "0:1:100", "-jobs", "1", "-format", "csv"); code != 0 {
		t.Errorf("a sweep of 10000 points: exit %d, %s", code, errOut)
	}
}

// peakRSSArgs, set in a child's environment, makes TestPeakRSSChild run
// retrysim with these arguments (separated by spaces).
const peakRSSArgs = "RETRYSIM_PEAK_RSS_ARGS"

// TestPeakRSSChild is the child process of TestPeakRSS; alone it does nothing.
func TestPeakRSSChild(t *testing.T) {
	args := os.Getenv(peakRSSArgs)
	if args == "" {
		t.Skip("run by TestPeakRSS")
	}
	os.Exit(run(strings.Fields(args), io.Discard, os.Stderr))
}

// The largest grid and the most replicates stay far under 200 MB of peak
// RSS, measured by the kernel in a child process. Old main held every
// point's and replicate's kilobytes of counters, and a worker's state for
// every configuration it had run: 300-450 MB for these.
func TestPeakRSS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ru_maxrss in kilobytes is Linux's")
	}
	// The two run side by side, each on one worker (a core each on two),
	// and the kernel counts each one's peak alone.
	all := []string{
		"sweep -p-fail 0:1:100 -lost-reply 0:1:100 -jobs 1 -workers 1 -format csv",
		"-replicates 10000 -jobs 1 -workers 1 -format json",
	}
	cmds := make([]*exec.Cmd, len(all))
	outs := make([]bytes.Buffer, len(all))
	for i, args := range all {
		cmds[i] = exec.Command(os.Args[0], "-test.run=^TestPeakRSSChild$")
		cmds[i].Env = append(os.Environ(), peakRSSArgs+"="+args)
		cmds[i].Stdout, cmds[i].Stderr = &outs[i], &outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, args := range all {
		if err := cmds[i].Wait(); err != nil {
			t.Errorf("retrysim %s: %v\n%s", args, err, outs[i].String())
			continue
		}
		rss := cmds[i].ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
		if rss > 150<<20 {
			t.Errorf("retrysim %s: peak RSS %d MB; want at most 150 MB", args, rss>>20)
		}
	}
}

// A scenario that is not a regular file is refused at once, naming -scenario.
func TestScenarioNotARegularFile(t *testing.T) {
	_, errOut, code := retrysim(t, "-scenario", "/dev/zero", "-jobs", "1")
	if want := "retrysim: -scenario /dev/zero: a device, not a regular file\n"; code != flagval.ExitUsage || errOut != want {
		t.Errorf("-scenario /dev/zero: exit %d, %q; want exit 2, %q", code, errOut, want)
	}
}

// -help states every limit the commands check, as the constants hold them.
func TestHelpStatesLimits(t *testing.T) {
	table, _, _ := retrysim(t, "-help")
	table = unwrapHelp(table)
	sweepHelp, _, _ := retrysim(t, "sweep", "-help")
	sweepHelp = unwrapHelp(sweepHelp)
	for _, tt := range []struct{ help, want string }{
		{table, fmt.Sprintf("(1 to %d)", jobapi.MaxReplicates)},
		{table, fmt.Sprintf("at most %d MiB", scenario.MaxFileSize>>20)},
		{table, "names, each once"},
		{sweepHelp, "at most " + group(sweep.MaxPoints) + " points"},
		{sweepHelp, group(sweep.MaxRows) + " rows"},
	} {
		if !strings.Contains(tt.help, tt.want) {
			t.Errorf("-help does not say %q", tt.want)
		}
	}
}

// group writes n with thousands commas, as the help text does.
func group(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Durations have one bound, 8760h, in flags and files alike, so virtual time
// cannot wrap: old main printed a completion of 0 s for this.
func TestDurationBound(t *testing.T) {
	_, errOut, code := retrysim(t, "-latency", "256205h", "-visibility", "2562047h", "-jobs", "1")
	if want := "retrysim: -latency: 256205h is longer than the 8760h (365 days) a duration may be\n"; code != flagval.ExitUsage || errOut != want {
		t.Errorf("exit %d, %q; want exit 2, %q", code, errOut, want)
	}
}

// A completion past the histogram's range, 2^23 s = 8,388,608 s (its last
// bucket starts 43 octaves above 2^-20 s), shows as such: "> " in the
// tables; in csv and json the number 8388608, the least it can be, with
// completion_past_range or failed_completion_past_range counting the jobs
// there (before, the text "5011872.336272715+", not a number, issue 21);
// never as the top bucket's middle. Ten steps of 1000h each take 3.6e7 s,
// past the range;
// the last run's 1000 attempts of 8760h would pass what time.Duration holds,
// and its virtual time saturates instead of wrapping (old main printed 0 s).
func TestCompletionPastTheHistogram(t *testing.T) {
	base := []string{"-jobs", "20", "-strategies", "step-nokey", "-model", "delivery"}
	out, errOut, code := retrysim(t, append(base, "-latency", "1000h")...)
	if code != 0 || !strings.Contains(out, "│ > 8,388,608 s / > 8,388,608 s / > 8,388,608 s │") {
		t.Errorf("table: exit %d, %s\n%s; want every quantile > 8388608 s", code, errOut, out)
	}
	for _, args := range [][]string{
		{"-latency", "1000h", "-format", "csv"},
		{"-latency", "8760h", "-visibility", "8760h", "-attempts", "1000", "-p-fail", "1", "-format", "csv"},
	} {
		out, errOut, code := retrysim(t, append(base, args...)...)
		rows := readCSV(t, out)
		if code != 0 || len(rows) != 2 {
			t.Fatalf("%v: exit %d, %s", args, code, errOut)
		}
		marked, past := 0, 0 // succeeded jobs' quantiles, or failed ones' when all failed
		for i, key := range rows[0] {
			v := rows[1][i]
			switch {
			case strings.HasSuffix(key, "completion_past_range"):
				if v != "0" && v != "20" {
					t.Errorf("%v: %s = %q; want 20 jobs or none", args, key, v)
				}
				if v == "20" {
					past++
				}
			case strings.Contains(key, "completion_p") && v != "":
				if x, err := strconv.ParseFloat(v, 64); err != nil || x != 8388608 {
					t.Errorf("%v: %s = %q; want the number 8388608 (2^23)", args, key, v)
				}
				marked++
			}
		}
		if marked != 3 || past != 1 {
			t.Errorf("%v: %d completion quantiles, %d counts of 20 jobs past the range; want 3 and 1", args, marked, past)
		}
	}
	out, _, _ = retrysim(t, append(base, "-latency", "1000h", "-format", "json")...)
	if !strings.Contains(out, `"completion_p50": 8388608,`) || !strings.Contains(out, `"completion_past_range": 20,`) {
		t.Errorf("json does not give the median past the range as a number and count the jobs there:\n%s", out)
	}
}

// The flags and scenario files go through one validator: each value is
// accepted by both or refused by both (old main took max_deliveries: 100000
// from a file where the flag stops at 1000, and a p99 with no median from
// either as a fixed 0 s).
func TestFlagsAndFilesShareBounds(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct{ flag, value, yaml string }{
		{"max-deliveries", "0", "queue: {max_deliveries: 0}"},
		{"max-deliveries", "1000", "queue: {max_deliveries: 1000}"},
		{"max-deliveries", "1001", "queue: {max_deliveries: 1001}"},
		{"max-deliveries", "100000", "queue: {max_deliveries: 100000}"},
		{"max-crashes", "1000", "queue: {crash: 0.1, max_crashes: 1000}"},
		{"max-crashes", "1001", "queue: {crash: 0.1, max_crashes: 1001}"},
		{"visibility", "0s", "queue: {visibility: 0s}"},
		{"visibility", "8760h", "queue: {visibility: 8760h}"},
		{"visibility", "8761h", "queue: {visibility: 8761h}"},
		{"ttl", "-1s", "queue: {store: claim, ttl: -1s}"},
		{"ttl", "9000h", "queue: {store: claim, ttl: 9000h}"},
		{"ttl", "8760h", "queue: {store: claim, ttl: 8760h}"},
		{"lease", "8760h", "queue: {store: lease, lease: 8760h}"},
		{"lease", "8761h", "queue: {store: lease, lease: 8761h}"},
		{"backoff-cap", "8761h", "queue: {backoff: {cap: 8761h}}"},
		{"repeat-delay", "0:1s", "queue: {repeat: 0.1, repeat_delay: {p99: 1s}}"},
		{"repeat-delay", "2s:1s", "queue: {repeat: 0.1, repeat_delay: {median: 2s, p99: 1s}}"},
		{"repeat-delay", "9000h", "queue: {repeat: 0.1, repeat_delay: 9000h}"},
		{"repeat-delay", "8760h", "queue: {repeat: 0.1, repeat_delay: 8760h}"},
		{"latency", "0:200ms", "steps: [{name: a, latency: {p99: 200ms}}]"},
		{"latency", "8760h", "steps: [{name: a, latency: 8760h}]"},
		{"latency", "8761h", "steps: [{name: a, latency: 8761h}]"},
	} {
		src := tt.yaml + "\nwatched: a\n"
		if !strings.HasPrefix(src, "steps") {
			src = "steps: [{name: a}]\n" + src
		}
		path := filepath.Join(dir, "s.yaml")
		if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		args := []string{"-jobs", "1", "-model", "delivery", "-" + tt.flag, tt.value}
		switch tt.flag { // flags that another must come with
		case "max-crashes":
			args = append(args, "-crash", "0.1")
		case "lease":
			args = append(args, "-store", "lease")
		case "ttl":
			args = append(args, "-store", "claim")
		case "repeat-delay":
			args = append(args, "-repeat", "0.1")
		}
		_, flagErr, flagCode := retrysim(t, args...)
		_, fileErr, fileCode := retrysim(t, "-jobs", "1", "-scenario", path)
		if (flagCode == 0) != (fileCode == 0) {
			t.Errorf("-%s %s: exit %d %q, but %s: exit %d %q", tt.flag, tt.value, flagCode, flagErr, tt.yaml, fileCode, fileErr)
		}
	}
}

// -help states the duration bound and the delivery counts' bounds.
func TestHelpStatesDurationBounds(t *testing.T) {
	help, _, _ := retrysim(t, "-help")
	help = unwrapHelp(help)
	for _, want := range []string{
		"is from 0 to " + strings.TrimSuffix(limits.MaxDuration.String(), "0m0s"),
		fmt.Sprintf("deliveries, 1 to %d", limits.DeliveryDeliveries),
		fmt.Sprintf("a job, 0 to %d", limits.DeliveryCrashes),
	} {
		if !strings.Contains(help, want) {
			t.Errorf("-help does not say %q", want)
		}
	}
}
