package fleet

import (
	"testing"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/schema"
)

// Fresh keys, worked by hand: a server that takes 4 s whatever the load, a
// 1 s timeout, one hedge 0.5 s after each attempt, 4 attempts 2 s apart, no
// network delay. Attempt 1 leaves at 0 s and takes its key into the server
// till 4 s; its hedge at 0.5 s carries the same key and is a conflict; the
// attempt times out at 1 s, so attempt 2 leaves at 3 s with a new key,
// which the server takes in (3-7 s), its hedge at 3.5 s a conflict; then
// attempts 3 (6 s) and 4 (9 s) alike, and the request fails at 10 s. So a
// request makes 8 calls, 4 hedges, 4 conflicts and 4 side effects, 3 of
// them duplicates: the store catches the hedges, not the retries. Same
// keys and no keys, on the same configuration, for contrast: without keys
// every copy does the work (the hedge at 0.5 s times out at 1.5 s, so
// attempts leave at 0, 3.5, 7 and 10.5 s: 8 effects); with the same key
// the hedge at 0.5 s conflicts, the second attempt (3 s) conflicts at once,
// before its hedge is due, and the third (5 s) finds the first's stored
// reply and succeeds: 4 calls, 1 hedge, 2 conflicts, 1 stored.
func TestFreshKeys(t *testing.T) {
	cfg := Config{
		Name: "fresh", Duration: 30 * time.Second,
		Load:   Shape{Kind: ConstantLoad, Rate: 20},
		Server: Server{Kind: IndependentServer, Base: 4 * time.Second},
		Client: Client{Clients: 1, Timeout: 1 * time.Second, Attempts: 4, Hedges: 1, HedgeDelay: 500 * time.Millisecond,
			Backoff: backoff.Schedule{Kind: backoff.Constant, Base: 2 * time.Second}},
	}
	type counts struct{ Calls, Hedges, Conflicts, Stored, Effects, Duplicates, Duplicated, Succeeded int64 }
	for _, tc := range []struct {
		keys schema.KeyMode
		per  counts // a request
	}{
		{schema.FreshKeys, counts{Calls: 8, Hedges: 4, Conflicts: 4, Effects: 4, Duplicates: 3, Duplicated: 1}},
		{schema.NoKeys, counts{Calls: 8, Hedges: 4, Effects: 8, Duplicates: 7, Duplicated: 1}},
		{schema.SameKey, counts{Calls: 4, Hedges: 1, Conflicts: 2, Stored: 1, Effects: 1, Succeeded: 1}},
	} {
		cfg.Client.Keys = tc.keys
		for _, r := range run(t, cfg, 2) {
			n := r.Requests
			got := counts{r.Calls, r.Hedges, r.Conflicts, r.Stored, r.Effects, r.Duplicates, r.Duplicated, r.Succeeded}
			p := tc.per
			want := counts{p.Calls * n, p.Hedges * n, p.Conflicts * n, p.Stored * n, p.Effects * n, p.Duplicates * n, p.Duplicated * n, p.Succeeded * n}
			if n == 0 || got != want {
				t.Errorf("keys %v, %d requests: %+v; want %+v", tc.keys, n, got, want)
			}
		}
	}
}
