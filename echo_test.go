package retrysim

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/provider"
)

// The echo writes each setting under its scenario key, as outputs show it,
// the backoff as one text and the steps' latency last, and reads back the
// same: every setting here has a value of its own, and the json is written
// out from the format's rules (a time or a latency as its text, an
// enumeration by its name).
func TestDeliveryParamsValues(t *testing.T) {
	q := delivery.Config{Store: delivery.Lease, TTL: time.Hour, Lease: 40 * time.Second, Visibility: 50 * time.Second,
		MaxDeliveries: 7, RepeatP: 0.25, RepeatDelay: provider.Latency{Median: 2 * time.Second, P99: time.Minute},
		CrashP: 0.125, CrashAt: delivery.AfterWork, MaxCrashes: 3,
		Backoff: backoff.Schedule{Kind: backoff.Exponential, Base: 300 * time.Millisecond, Cap: 9 * time.Second}}
	const want = `{"store":"lease","ttl":"1h0m0s","lease":"40s","visibility":"50s","max_deliveries":7,"repeat":0.25,` +
		`"repeat_delay":"lognormal median 2s p99 1m0s","crash":0.125,"crash_at":"after-work","max_crashes":3,` +
		`"backoff":"exponential base 300ms cap 9s","latency":"fixed 20ms"}`
	d := deliveryParams(q, "fixed 20ms")
	got, err := json.Marshal(d)
	if err != nil || string(got) != want {
		t.Fatalf("deliveryParams as json = %s, %v; want %s", got, err, want)
	}
	var back stats.DeliveryParams
	if err := json.Unmarshal(got, &back); err != nil || back.Backoff != d.Backoff || back.Latency != d.Latency {
		t.Fatalf("json.Unmarshal(%s) = %+v, %v", got, back, err)
	}
	if again, err := json.Marshal(back); err != nil || string(again) != want {
		t.Errorf("read back and written again: %s, %v; want %s", again, err, want)
	}
	for _, bad := range []string{`{"backoff":1}`, `{"store":{}}`, `{"store":"a","store":"b"}`, `[1]`, `{"store":null}`} {
		if err := json.Unmarshal([]byte(bad), new(stats.DeliveryParams)); err == nil {
			t.Errorf("json.Unmarshal(%s) succeeded", bad)
		}
	}
}
