package main

import (
	"testing"
	"time"

	"github.com/retrysim/retrysim/internal/race"
)

// raceTitle names the crashes, the waves and the kept databases only when
// the run has them, and a crash probability as a percentage to 4 digits;
// -compare's intervals are said to be 95% intervals; one of a thing is
// singular (issue 23 item 6: "1 rounds").
func TestRaceTitle(t *testing.T) {
	base := race.Config{Procs: 4, Jobs: 12000, Deliveries: 2, Rounds: 3, Lease: time.Second}
	const head = "The SQLite check, for real: 4 worker processes, 12,000 jobs x 2 deliveries, 3 rounds; lease 1s"
	crash, waves, kept := base, base, base
	crash.CrashAt, crash.CrashP = race.AfterKey, 0.0012345
	waves.Gap, waves.TTL = 10*time.Millisecond, 5*time.Millisecond
	kept.Keep, kept.Dir = true, "/tmp/d"
	one := race.Config{Procs: 1, Jobs: 1, Deliveries: 1, Rounds: 1, Lease: time.Minute}
	for _, tc := range []struct {
		cfg     race.Config
		compare bool
		want    string
	}{
		{base, false, head},
		{crash, false, head + "; 0.1235% of first deliveries killed at after-key"},
		{waves, false, head + "; deliveries 10ms apart, keys purged after 5ms"},
		{kept, false, head + "; databases kept in /tmp/d"},
		{base, true, head + "; [lo, hi]: 95% intervals"},
		{one, false, "The SQLite check, for real: 1 worker process, 1 job x 1 delivery, 1 round; lease 1m"},
	} {
		if got := raceTitle(tc.cfg, tc.compare); got != tc.want {
			t.Errorf("raceTitle = %q; want %q", got, tc.want)
		}
	}
}
