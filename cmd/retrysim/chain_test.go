package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/internal/chain"
	"github.com/retrysim/retrysim/internal/flagval"
)

// One worker, one queue place, nothing retried: in collapse both hold an
// abandoned call, and the server is healthy (nothing queued) once the
// worker's call ends, after an exponential time of mean -service 2s
// (arrivals are rejected meanwhile, and are not retried). So the mean time
// to health is 2 s, and health comes within 1 s with probability 1 - e^-0.5;
// the orbit, never entered, is empty in collapse, and the output says so.
func TestChainByHand(t *testing.T) {
	out, errOut, code := retrysim(t, "chain", "-capacity", "1", "-queue", "1", "-retry-prob", "0", "-service", "2s", "-within", "1s")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, %s", code, errOut)
	}
	// The settings read, wrapped at 100 columns (no spike, no splitting).
	want := "retrysim chain -backoff-rate 1 -capacity 1 -orbit 5 -p-fail 0 -queue 1 -rate 1 -retry-prob 0 -seed 1\n" +
		"    -service 2s -shape constant -timeout-rate 0.5 -within 1s\n" +
		"states 7, transitions 14\n" + // idle, live, abandoned; each busy with a live or abandoned call queued
		"mean time from collapse (the orbit empty: with -retry-prob 0 nothing enters it) to health: 2 s\n" +
		fmt.Sprintf("probability of health within 1 s from collapse (the orbit empty: with -retry-prob 0 nothing enters it): %.6g\n", 1-math.Exp(-0.5))
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// The chain says what it computes. One worker, no queue, no orbit, failing
// with -p-fail 0.2: three states (idle, a live call, an abandoned one) and
// four transitions, pairs of states (an arrival, idle to live; the service's
// end, live to idle, whether the call succeeds or fails; a timeout, live to
// abandoned; the abandoned call's end, to idle), where the chain's rates
// count the live call's two ends apart. Its -help says when -p-fail strikes
// and whose spike -shape spike is, and docs/fleet.md's low-effort splitting
// figure names the flags that give it.
func TestChainSaysWhatItComputes(t *testing.T) {
	out, _, _ := retrysim(t, "chain", "-capacity", "1", "-queue", "0", "-orbit", "0", "-p-fail", "0.2")
	if !strings.Contains(out, "\nstates 3, transitions 4\n") {
		t.Errorf("chain -capacity 1 -queue 0 -orbit 0 -p-fail 0.2:\n%s\nwant states 3, transitions 4", out)
	}
	help, _, _ := retrysim(t, "chain", "-help")
	for _, e := range helpEntries(help) {
		if e.name == "p-fail" && !strings.Contains(e.usage, "when its service ends") {
			t.Errorf("chain -p-fail: %q does not say when a failure strikes", e.usage)
		}
		if e.name == "shape" && strings.Contains(e.usage, "brooker-collapse") {
			t.Errorf("chain -shape: %q names brooker-collapse's spike, which the chain does not take", e.usage)
		}
	}
	doc, err := os.ReadFile("../../docs/fleet.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)With `retrysim (chain [^`]+)`[^;]*?the\\s+chain gives 2\\.03 x 10\\^-3; `(-split-runs 6 -split-effort 50)` prints 0\\.81 x 10\\^-3").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/fleet.md does not name the command whose chain gives 2.03 x 10^-3")
	}
	args := append(strings.Fields(string(m[1])), strings.Fields(string(m[2]))...)
	out, errOut, _ := retrysim(t, args...)
	got := regexp.MustCompile(`: chain ([0-9.e-]+)\n.*?paths a level: ([0-9.e-]+),`).FindStringSubmatch(out)
	if got == nil || fmt.Sprintf("%.3g %.2g", atof(t, got[1]), atof(t, got[2])) != "0.00203 0.00081" {
		t.Errorf("retrysim %s: %s%s; want the chain's 2.03 x 10^-3 and the splitting's 0.81 x 10^-3 docs/fleet.md quotes", strings.Join(args, " "), out, errOut)
	}
}

func atof(t *testing.T, s string) float64 {
	t.Helper()
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// A chain beyond the limits, a ramp, or a transient of too many steps is
// refused as bad usage, with nothing on stdout.
func TestChainRefuses(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-queue", "21"}, fmt.Sprintf("-queue: 21 places are more than the chain's %d", chain.MaxQueue)},
		{[]string{"-capacity", "2", "-queue", "7", "-orbit", "3"}, "-capacity 2 -queue 7 -orbit 3: orbit size 0 has 768 states, more than 500 (MaxBlock)"},
		// Under MaxSteps, but 2.6e10 multiply-adds (minutes) before MaxWork.
		{[]string{"-capacity", "2", "-queue", "6", "-orbit", "40", "-within", "1h"}, "-within 3600 s: uniformisation would take 171532 steps over 150480 rates, 2.58e+10 multiply-adds, more than 5e+08 (MaxWork)"},
		{[]string{"-capacity", "1", "-queue", "6", "-orbit", "100"}, "-capacity 1 -queue 6 -orbit 100: the chain has more than 20000 states (MaxStates)"},
		{[]string{"-shape", "ramp"}, "-shape: ramp is not piecewise constant"},
		{[]string{"-within", "8000h"}, "-within 2.88e+07 s: uniformisation would take"},
		{[]string{"-retry-prob", "1.5"}, "-retry-prob"},
		{[]string{"-split-orbit", "6"}, "-split-orbit: the orbit never reaches 6 with -orbit 5 and -retry-prob 0.9"},
		{[]string{"-split-orbit", "2", "-retry-prob", "0"}, "-split-orbit: the orbit never reaches 2 with -orbit 5 and -retry-prob 0"},
		{[]string{"-split-orbit", "2", "-split-horizon", "3600s"}, "-split-horizon: 3600 s is not above 0 s and at most 3599 s"},
		{[]string{"-split-runs", "1"}, "-split-runs"},
		// Costed before the run (issue 34: 6 GB in 48 s, then more).
		{[]string{"-split-orbit", "5", "-split-effort", "100000"}, "-split-effort: 100,000 paths a level keep up to 200,001 paths at once, each a replicate's state of up to 83 KiB (its series over 31s included), about 15.8 GiB; at most 4.0 GiB"},
		{[]string{"-split-orbit", "5", "-split-effort", "20000", "-split-horizon", "3599s"}, "-split-horizon: 20,000 paths a level keep up to 40,001 paths at once"},
	} {
		out, errOut, code := retrysim(t, append([]string{"chain"}, tt.args...)...)
		if code != flagval.ExitUsage || out != "" || !strings.HasPrefix(errOut, "retrysim: "+tt.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tt.args, code, out, errOut, tt.want)
		}
	}
}

// With -split-orbit the command prints the chain's value, the splitting's
// estimate and the work, the same bytes whatever -workers (internal/chain's
// TestSplittingAgreesWithChain holds such estimates to the chain).
func TestChainSplitting(t *testing.T) {
	args := []string{"chain", "-rate", "0.6", "-queue", "3", "-timeout-rate", "0.3", "-retry-prob", "0.8", "-orbit", "6",
		"-split-orbit", "6", "-split-horizon", "20s", "-split-runs", "3", "-split-effort", "50"}
	one, errOut, code := retrysim(t, append(args, "-workers", "1")...)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, %s", code, errOut)
	}
	three, _, _ := retrysim(t, append(args, "-workers", "3")...)
	if one != three {
		t.Errorf("-workers 1 printed\n%s\n-workers 3\n%s", one, three)
	}
	lines := strings.Split(strings.TrimSuffix(one, "\n"), "\n")
	n := len(lines) // the echo of the settings above may take several lines
	if n < 6 || !strings.HasPrefix(lines[n-3], "probability the orbit reaches 6 within 20 s of an empty server: chain ") ||
		!strings.HasPrefix(lines[n-2], "multilevel splitting, 3 runs of 50 paths a level: ") ||
		!strings.HasPrefix(lines[n-1], "crude replicates for the same relative error: ") {
		t.Errorf("got\n%s", one)
	}
}

// TestChainShardsMerge runs a chain's splitting in three shards (in any
// order, with any -workers, one by -shard auto/3 from a Kubernetes index)
// and wants merge to print the single run's bytes, to stdout or -o; a
// missing, repeated, foreign or impossible (an estimate above 1) shard is
// refused, and so is -shard without a splitting to shard.
func TestChainShardsMerge(t *testing.T) {
	args := []string{"chain", "-rate", "0.6", "-queue", "3", "-timeout-rate", "0.3", "-retry-prob", "0.8", "-orbit", "6",
		"-split-orbit", "6", "-split-horizon", "20s", "-split-runs", "6", "-split-effort", "50"}
	whole, errOut, code := retrysim(t, args...)
	if code != 0 || errOut != "" {
		t.Fatalf("whole run: exit %d, %s", code, errOut)
	}
	dir := t.TempDir()
	shard := func(name string, extra ...string) string {
		t.Helper()
		out, errOut, code := retrysim(t, append(slices.Clone(args), extra...)...)
		if code != 0 || errOut != "" {
			t.Fatalf("%q: exit %d, %s", extra, code, errOut)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	t.Setenv("SLURM_ARRAY_TASK_ID", "")
	t.Setenv("PARALLEL_SEQ", "")
	t.Setenv("JOB_COMPLETION_INDEX", "1")
	files := []string{shard("s2.json", "-shard", "2/3", "-workers", "1"), shard("s0.json", "-shard", "0/3", "-workers", "3"), shard("s1.json", "-shard", "auto/3")}
	merged, errOut, code := retrysim(t, append([]string{"merge"}, files...)...)
	if code != 0 || merged != whole {
		t.Fatalf("merge: exit %d, %s; printed\n%s\nwant\n%s", code, errOut, merged, whole)
	}
	outPath := filepath.Join(dir, "merged.txt")
	if out, errOut, code := retrysim(t, append([]string{"merge", "-o", outPath}, files...)...); code != 0 || out != "" {
		t.Fatalf("merge -o: exit %d, stdout %q, %s", code, out, errOut)
	}
	if b, _ := os.ReadFile(outPath); string(b) != whole {
		t.Errorf("merge -o wrote\n%s\nwant\n%s", b, whole)
	}

	other := shard("other.json", "-shard", "1/3", "-seed", "2")
	s0, _ := os.ReadFile(files[1])
	tampered := filepath.Join(dir, "tampered.json")
	if err := os.WriteFile(tampered, s0, 0o644); err != nil {
		t.Fatal(err)
	}
	editItems(t, tampered, func(items []chain.Item) { items[0].P = 1.5 })
	for _, bad := range []struct {
		files []string
		want  string
	}{
		{files[:2], "merge: shard 1/3 is missing"},
		{append(files[:3:3], files[1]), "repeats shard 0/3"},
		{[]string{files[0], files[1], other}, "is a shard of another run than"},
		{[]string{files[0], tampered, files[2]}, "(estimate 1.5, "},
		{append(files[:3:3], "-plot", filepath.Join(dir, "p.png")), "merge: -plot: " + files[0] + " is a chain shard, whose merge takes -o"},
	} {
		out, e, c := retrysim(t, append([]string{"merge"}, bad.files...)...)
		if c != flagval.ExitUsage || out != "" || !strings.Contains(e, bad.want) {
			t.Errorf("merge %v: exit %d, stdout %q, stderr %q; want 2 and %q", bad.files, c, out, e, bad.want)
		}
	}
	out, e, c := retrysim(t, "chain", "-shard", "0/2")
	if want := "retrysim: -shard: only splitting runs are sharded, and without -split-orbit there are none; the chain itself is exact and cheap\n"; c != flagval.ExitUsage || out != "" || !strings.HasPrefix(e, want) {
		t.Errorf("chain -shard 0/2: exit %d, stdout %q, stderr %q; want 2 and %q", c, out, e, want)
	}
}
