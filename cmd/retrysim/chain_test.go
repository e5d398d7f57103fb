package main

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/fleet/chain"
	"github.com/retrysim/retrysim/internal/flagval"
)

// One worker, one queue place, nothing retried: in collapse both hold an
// abandoned call, and the server is healthy (nothing queued) once the
// worker's call ends, after an exponential time of mean -service 2s
// (arrivals are rejected meanwhile, and are not retried). So the mean time
// to health is 2 s, and health comes within 1 s with probability 1 - e^-0.5.
func TestChainByHand(t *testing.T) {
	out, errOut, code := retrysim(t, "chain", "-capacity", "1", "-queue", "1", "-retry-prob", "0", "-service", "2s", "-within", "1s")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, %s", code, errOut)
	}
	want := "retrysim chain -backoff-rate 1 -capacity 1 -from 0s -orbit 5 -p-fail 0 -peak 3 -queue 1 -rate 1 -retry-prob 0 -service 2s -shape constant -timeout-rate 0.5 -to 0s -within 1s\n" +
		"states 7, transitions 14\n" + // idle, live, abandoned; each busy with a live or abandoned call queued
		"mean time from collapse to health: 2 s\n" +
		fmt.Sprintf("probability of health within 1 s from collapse: %.6g\n", 1-math.Exp(-0.5))
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
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
		{[]string{"-capacity", "1", "-queue", "6", "-orbit", "100"}, "-capacity 1 -queue 6 -orbit 100: the chain has more than 20000 states (MaxStates)"},
		{[]string{"-shape", "ramp"}, "-shape: ramp is not piecewise constant"},
		{[]string{"-within", "8000h"}, "-within 2.88e+07 s: uniformisation would take"},
		{[]string{"-retry-prob", "1.5"}, "-retry-prob"},
	} {
		out, errOut, code := retrysim(t, append([]string{"chain"}, tt.args...)...)
		if code != flagval.ExitUsage || out != "" || !strings.HasPrefix(errOut, "retrysim: "+tt.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tt.args, code, out, errOut, tt.want)
		}
	}
}
