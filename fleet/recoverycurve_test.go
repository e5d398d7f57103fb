package fleet

import (
	"math"
	"testing"
	"time"

	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/stats"
)

// TestRecoveryCurve: a run's curve censors a replicate still down at the
// end of its series (40 s, the load settled at 10 s: 30 s) and leaves out
// one too short to judge, so 2 of 4 recovered (0 and 4 s) make the median
// 4 s: after 0 s 3/4 left, after 4 s 3/4 x 2/3 = 1/2.
func TestRecoveryCurve(t *testing.T) {
	spike := Config{Duration: 40 * time.Second, Load: Shape{Kind: Spike, Rate: 10, Peak: 20, From: 5 * time.Second, To: 10 * time.Second}}
	nan := math.NaN()
	series := make([]fleetdata.Second, 40)
	r := Result{Config: spike, replicates: []fleetdata.Replicate{
		{Recovery: 0, Verdict: fleetdata.Recovered, Series: series}, {Recovery: nan, Verdict: fleetdata.Down, Series: series},
		{Recovery: 4, Verdict: fleetdata.Recovered, Series: series}, {Recovery: nan, Verdict: fleetdata.Down, Series: series},
		{Recovery: nan, Verdict: fleetdata.TooShort, Series: series},
	}}
	obs := r.observations()
	want := []stats.Observation{{Time: 0, Recovered: true}, {Time: 30}, {Time: 4, Recovered: true}, {Time: 30}}
	if len(obs) != len(want) {
		t.Fatalf("Observations() = %v; want %v", obs, want)
	}
	for i := range want {
		if obs[i] != want[i] {
			t.Errorf("observation %d = %v; want %v", i, obs[i], want[i])
		}
	}
	if q := r.summary().RecoveryTime; q.P25 != 0 || q.Median != 4 || !math.IsNaN(q.P75) {
		t.Errorf("RecoveryTime = %+v; want 0, 4, NaN", q)
	}
}

// DuplicatesPerRequest is the mean of the replicates' ratios.
func TestDuplicatesPerRequest(t *testing.T) {
	r := Result{Config: Config{Duration: 80 * time.Second, Load: Shape{Kind: Spike, Rate: 40, Peak: 80, From: 20 * time.Second, To: 25 * time.Second}},
		replicates: []fleetdata.Replicate{
			{Recovery: math.NaN(), Verdict: fleetdata.Down, Counts: fleetdata.Counts{Requests: 100, Duplicates: 10}, Series: make([]fleetdata.Second, 80)},
			{Recovery: 5, Verdict: fleetdata.Recovered, Counts: fleetdata.Counts{Requests: 200, Duplicates: 60}, Series: make([]fleetdata.Second, 80)},
		}}
	if e := r.duplicatesPerRequest(); math.Abs(e.Value-0.2) > 1e-15 || e.N != 2 {
		t.Errorf("DuplicatesPerRequest() = %+v; want the mean of 0.1 and 0.3, 0.2", e)
	}
}
