package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestMain lets this test binary serve as retrysim's race workers: race
// starts copies of its own executable with the hidden worker command.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == workerCommand {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

type raceRow struct {
	Mode          string `json:"mode"`
	Races         int64  `json:"races"`
	DoubleCharged int64  `json:"double_charged"`
	Lost          int64  `json:"lost"`
	BusyRetries   int64  `json:"busy_retries"`
	Agree         bool   `json:"agree"`
}

func raceJSON(t *testing.T, args ...string) []raceRow {
	t.Helper()
	out, errOut, code := retrysim(t, append([]string{"race", "-format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Rows []raceRow `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	return rep.Rows
}

// The simulator and the real harness agree, mode by mode, on a small
// configuration: twenty two-worker races, then twenty with half the first
// deliveries killed between the key and the charge.
func TestRaceCompareAgrees(t *testing.T) {
	for _, args := range [][]string{
		{"-mode", "loose,claim,after,lease", "-repeat", "20", "-compare"},
		{"-mode", "claim,lease", "-repeat", "20", "-crash", "after-key", "-crash-p", "0.5", "-lease", "200ms", "-compare"},
	} {
		for _, r := range raceJSON(t, args...) {
			if !r.Agree {
				t.Errorf("race %s, %s: the simulator disagrees with the harness: %+v", strings.Join(args, " "), r.Mode, r)
			}
			if r.Races != 20 {
				t.Errorf("%s: %d races; want 20", r.Mode, r.Races)
			}
		}
	}
}

func TestRaceBadInput(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-mode", "optimistic"}, `-mode: unknown mode "optimistic"`},
		{[]string{"-compare", "-deliveries", "3"}, "-compare: the simulator pairs two deliveries of a job"},
		{[]string{"-ttl", "1s"}, "-ttl: keys are purged between waves of deliveries; give -gap too"},
		{[]string{"-crash", "before-lunch"}, `-crash: unknown crash point "before-lunch"`},
		{[]string{"-workers", "0"}, "-workers: want a whole number from 1 to 256"},
	} {
		out, errOut, code := retrysim(t, append([]string{"race"}, tt.args...)...)
		if code != 2 || out != "" || !strings.Contains(errOut, tt.want) {
			t.Errorf("race %v: exit %d, stderr %q; want 2 and %q", tt.args, code, errOut, tt.want)
		}
	}
}
