package retrysim

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/stats"
)

// stats.DeliveryParams echoes every setting of the queue whose key is no
// mapping's under that key, and holds nothing else but the backoff's text
// and the steps' latency.
func TestDeliveryParamsEchoEverySetting(t *testing.T) {
	want := map[string]bool{"backoff": true, "latency": true}
	for _, s := range delivery.Settings() {
		if !strings.Contains(s.Key, ".") {
			want[s.Key] = true
		}
	}
	typ := reflect.TypeFor[stats.DeliveryParams]()
	got := map[string]bool{}
	for i := range typ.NumField() {
		tag := strings.Split(typ.Field(i).Tag.Get("json"), ",")[0]
		if tag == "-" {
			continue
		}
		got[tag] = true
		if !want[tag] {
			t.Errorf("stats.DeliveryParams.%s (%q) is no setting's key", typ.Field(i).Name, tag)
		}
	}
	for k := range want {
		if !got[k] {
			t.Errorf("stats.DeliveryParams has no field for %q", k)
		}
	}
}

// The echo writes each setting in its own field, as outputs show it:
// every field here has a value of its own.
func TestDeliveryParamsValues(t *testing.T) {
	q := delivery.Config{Store: delivery.Lease, TTL: time.Hour, Lease: 40 * time.Second, Visibility: 50 * time.Second,
		MaxDeliveries: 7, RepeatP: 0.25, RepeatDelay: provider.Latency{Median: 2 * time.Second, P99: time.Minute},
		CrashP: 0.125, CrashAt: delivery.AfterWork, MaxCrashes: 3,
		Backoff: backoff.Policy{Kind: backoff.Exponential, Base: 300 * time.Millisecond, Cap: 9 * time.Second}}
	want := stats.DeliveryParams{Store: "lease", TTL: "1h0m0s", Lease: "40s", Visibility: "50s", MaxDeliveries: 7,
		Repeat: 0.25, RepeatDelay: "lognormal median 2s p99 1m0s", Crash: 0.125, CrashAt: "after-work", MaxCrashes: 3,
		Backoff: "exponential base 300ms cap 9s", Latency: "fixed 20ms"}
	if got := deliveryParams(q, "fixed 20ms"); !reflect.DeepEqual(*got, want) {
		t.Errorf("deliveryParams = %+v; want %+v", *got, want)
	}
}
