package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/retrysim/retrysim/scenario"
	"github.com/retrysim/retrysim/sweep"
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
		if code != exitUsage || strings.TrimSpace(errOut) != tt.want {
			t.Errorf("retrysim %s: exit %d, %q; want exit 2, %q", strings.Join(tt.args, " "), code, errOut, tt.want)
		}
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
	for _, args := range []string{
		"sweep -p-fail 0:1:100 -lost-reply 0:1:100 -jobs 1 -workers 1 -format csv",
		"-replicates 10000 -jobs 1 -workers 1 -format json",
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPeakRSSChild$")
		cmd.Env = append(os.Environ(), peakRSSArgs+"="+args)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("retrysim %s: %v\n%s", args, err, out)
		}
		rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
		if rss > 150<<20 {
			t.Errorf("retrysim %s: peak RSS %d MB; want at most 150 MB", args, rss>>20)
		}
	}
}

// A scenario that is not a regular file is refused at once, naming -scenario.
func TestScenarioNotARegularFile(t *testing.T) {
	_, errOut, code := retrysim(t, "-scenario", "/dev/zero", "-jobs", "1")
	if want := "retrysim: -scenario /dev/zero: a device, not a regular file\n"; code != exitUsage || errOut != want {
		t.Errorf("-scenario /dev/zero: exit %d, %q; want exit 2, %q", code, errOut, want)
	}
}

// -help states every limit the commands check, as the constants hold them.
func TestHelpStatesLimits(t *testing.T) {
	table, _, _ := retrysim(t, "-help")
	sweepHelp, _, _ := retrysim(t, "sweep", "-help")
	for _, tt := range []struct{ help, want string }{
		{table, fmt.Sprintf("(1 to %d)", maxReplicates)},
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
