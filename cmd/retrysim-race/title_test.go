package main

import (
	"testing"
	"time"

	"github.com/retrysim/retrysim/internal/race"
)

// raceTitle names the crashes, the waves and the kept databases only when
// the run has them, and a crash probability as a percentage to 4 digits.
func TestRaceTitle(t *testing.T) {
	base := race.Config{Procs: 4, Jobs: 12000, Deliveries: 2, Rounds: 3, Lease: time.Second}
	const head = "The SQLite check, for real: 4 worker processes, 12,000 jobs x 2 deliveries, 3 rounds; lease 1s"
	crash, waves, kept := base, base, base
	crash.CrashAt, crash.CrashP = race.AfterKey, 0.0012345
	waves.Gap, waves.TTL = 10*time.Millisecond, 5*time.Millisecond
	kept.Keep, kept.Dir = true, "/tmp/d"
	for _, tc := range []struct {
		cfg  race.Config
		want string
	}{
		{base, head},
		{crash, head + "; 0.1235% of first deliveries killed at after-key"},
		{waves, head + "; deliveries 10ms apart, keys purged after 5ms"},
		{kept, head + "; databases kept in /tmp/d"},
	} {
		if got := raceTitle(tc.cfg); got != tc.want {
			t.Errorf("raceTitle = %q; want %q", got, tc.want)
		}
	}
}
