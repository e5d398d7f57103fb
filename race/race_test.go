package race

import (
	"context"
	"os"
	"testing"
	"time"
)

// TestMain lets the test binary be the worker process, as the retrysim
// binary is for retrysim race.
func TestMain(m *testing.M) {
	if os.Getenv("RETRYSIM_RACE_WORKER") == "1" {
		if err := Worker(os.Args[1:], os.Stdin, os.Stdout); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func config(mode Mode) Config {
	return Config{
		Mode: mode, Workers: 2, Keys: 1, Deliveries: 2, Repeat: 1,
		Lease: 300 * time.Millisecond, Seed: 1,
		Exe: os.Args[0], Env: []string{"RETRYSIM_RACE_WORKER=1"},
	}
}

func run(t *testing.T, cfg Config) Result {
	t.Helper()
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Twenty two-worker races, as in the check: check-then-insert charges twice
// nearly every time; a UNIQUE key never does, its loser refused with 2067.
func TestTwentyRaces(t *testing.T) {
	loose := config(Loose)
	loose.Repeat = 20
	if res := run(t, loose); res.DoubleCharged < 18 {
		t.Errorf("loose: %d of 20 races charged twice; want at least 18 (%+v)", res.DoubleCharged, res)
	}
	claim := config(Claim)
	claim.Repeat = 20
	res := run(t, claim)
	if res.DoubleCharged != 0 || res.Refused != 20 || len(res.RefusedCodes) != 1 || res.RefusedCodes[0] != codeConstraintUnique {
		t.Errorf("claim: %d of 20 charged twice, %d refusals with codes %v; want 0, 20 and [2067]", res.DoubleCharged, res.Refused, res.RefusedCodes)
	}
}

// A worker killed between the key and the charge, then the redelivery.
func TestCrashes(t *testing.T) {
	for _, tt := range []struct {
		mode          Mode
		crash         CrashPoint
		charges, lost int64
	}{
		{Claim, AfterKey, 0, 1},    // the key says handled, nothing was charged
		{Lease, AfterKey, 1, 0},    // the lease runs out and the redelivery charges once
		{After, AfterCharge, 2, 0}, // charged, no key, charged again
	} {
		t.Run(string(tt.mode), func(t *testing.T) {
			cfg := config(tt.mode)
			cfg.Workers, cfg.Deliveries, cfg.Crash, cfg.CrashP = 1, 1, tt.crash, 1
			res := run(t, cfg)
			if got := int64(res.ChargesPerRace); got != tt.charges || res.Lost != tt.lost || res.Crashes != 1 {
				t.Errorf("%v charges, %d lost, %d crashes; want %d, %d, 1", res.ChargesPerRace, res.Lost, res.Crashes, tt.charges, tt.lost)
			}
		})
	}
}

// A key purged before the second delivery comes is no key.
func TestTTL(t *testing.T) {
	for _, tt := range []struct {
		ttl     time.Duration
		charges float64
	}{{100 * time.Millisecond, 2}, {time.Minute, 1}} {
		cfg := config(Claim)
		cfg.Workers, cfg.Gap, cfg.TTL = 1, 300*time.Millisecond, tt.ttl
		if res := run(t, cfg); res.ChargesPerRace != tt.charges {
			t.Errorf("TTL %v with deliveries 300ms apart: %v charges; want %v", tt.ttl, res.ChargesPerRace, tt.charges)
		}
	}
}

// Sixteen workers, a thousand jobs, four deliveries each: the UNIQUE claim and
// the lease never charge twice, and the lease loses nothing even with 5% of
// deliveries' workers killed mid-job; no SQLITE_BUSY escapes (it would fail
// the run).
func TestScale(t *testing.T) {
	if testing.Short() {
		t.Skip("16 x 1,000 x 4 deliveries: run without -short")
	}
	for _, tt := range []struct {
		mode  Mode
		crash CrashPoint
		p     float64
	}{{Claim, NoCrash, 0}, {Lease, NoCrash, 0}, {Lease, AfterKey, 0.05}} {
		cfg := config(tt.mode)
		cfg.Workers, cfg.Keys, cfg.Deliveries, cfg.Crash, cfg.CrashP = 16, 1000, 4, tt.crash, tt.p
		res := run(t, cfg)
		t.Logf("%s, crash %v at %q: %+v", tt.mode, tt.p, tt.crash, res)
		if res.DoubleCharged != 0 {
			t.Errorf("%s: %d jobs charged twice; want 0", tt.mode, res.DoubleCharged)
		}
		if tt.mode == Lease && (res.Lost != 0 || res.ChargesPerRace != 1) {
			t.Errorf("lease, %v killed: %d jobs lost, %v charges a job; want 0 and 1", tt.p, res.Lost, res.ChargesPerRace)
		}
		if tt.p > 0 && res.Crashes == 0 {
			t.Errorf("lease: no worker was killed; want about 5%% of 4,000 deliveries")
		}
	}
}
