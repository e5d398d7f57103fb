package fleet

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/stats"
)

// TestCheckReplicateRefuses: a replicate of another run's length, with
// impossible totals, quantiles out of order or a recovery its series does
// not give is refused, naming what is wrong.
func TestCheckReplicateRefuses(t *testing.T) {
	c := DefaultConfig()
	c.Duration, c.Load.Kind, c.Load.From, c.Load.To, c.Load.Peak = 20*time.Second, Spike, 2*time.Second, 4*time.Second, 3*c.Load.Rate
	res, err := Run(context.Background(), []Config{c}, Options{Replicates: 1, Seed: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	good := res[0].replicates[0]
	if err := c.checkReplicate(&good); err != nil {
		t.Fatalf("the run's own replicate: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(r *fleetdata.Replicate)
		want string
	}{
		{"short series", func(r *fleetdata.Replicate) { r.Series = r.Series[:5] }, "series: 5 seconds; the run has 20"},
		{"negative", func(r *fleetdata.Replicate) { r.Calls = -1 }, "calls: -1 is negative"},
		{"more succeeded", func(r *fleetdata.Replicate) { r.Succeeded = r.Requests + 1 }, "more than the"},
		{"duplicates", func(r *fleetdata.Replicate) { r.Duplicates = r.Effects + 1 }, "more than the"},
		{"quantiles", func(r *fleetdata.Replicate) { r.P95 = r.P99 + 25026 }, "not in order"},
		{"nan end", func(r *fleetdata.Replicate) { r.End = math.NaN() }, "end: NaN"},
		{"starts", func(r *fleetdata.Replicate) {
			r.Series = append([]fleetdata.Second(nil), r.Series...)
			r.Series[3].Starts++
		}, "requests start in it"},
		{"recovery", func(r *fleetdata.Replicate) { r.Recovery++ }, "recovery:"},
		// Found by a review's forged shards: a series served beside 0
		// succeeded, timeouts 100 times the calls, counts past the cost bound.
		{"served, none succeeded", func(r *fleetdata.Replicate) {
			r.Series = append([]fleetdata.Second(nil), r.Series...)
			for i := range r.Series {
				r.Series[i].Served = r.Series[i].Starts
			}
			r.Succeeded, r.Failed = 0, 0
		}, "served and"},
		{"served beyond starts", func(r *fleetdata.Replicate) {
			r.Series = append([]fleetdata.Second(nil), r.Series...)
			r.Series[3].Served = r.Series[3].Starts + 1
		}, "requests served"},
		{"timeouts", func(r *fleetdata.Replicate) { r.Timeouts = 100 * r.Calls }, "one is more than the"},
		{"events", func(r *fleetdata.Replicate) { r.Events = 1 << 62 }, "beyond what a run of these settings reaches"},
		{"calls", func(r *fleetdata.Replicate) { r.Calls, r.Entered = 1<<62, 1<<62 }, "beyond what a run of these settings reaches"},
	} {
		r := good
		tc.edit(&r)
		if err := c.checkReplicate(&r); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want an error with %q", tc.name, err, tc.want)
		}
	}
	obs := res[0].observations()
	for _, tc := range []struct {
		name string
		obs  []stats.Observation
		want string
	}{
		{"too many", append(obs, obs...), "2 replicates; the run has 1"},
		{"negative", []stats.Observation{{Time: -1, Recovered: true}}, "not from 0 to 16 s"},
		{"late", []stats.Observation{{Time: 17, Recovered: true}}, "not from 0 to 16 s"},
		{"down early", []stats.Observation{{Time: 3}}, "censored at 16 s"},
	} {
		if err := c.checkObservations(tc.obs, 1); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("observations %s: %v; want an error with %q", tc.name, err, tc.want)
		}
	}
}
