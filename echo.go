package retrysim

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/stats"
)

// deliveryParams is q as outputs echo it: each setting of
// delivery.Settings in the field of stats.DeliveryParams whose json key is
// its scenario key, a time or a latency as its text (24h0m0s, fixed 2s),
// an enumeration by its value's name; a mapping of settings, the backoff,
// as one text (backoffText). latency is how long the steps' calls take,
// which no queue setting holds.
func deliveryParams(q delivery.Config, latency string) *stats.DeliveryParams {
	d := &stats.DeliveryParams{Backoff: backoffText(q.Backoff), Latency: latency}
	for _, s := range delivery.Settings() {
		if strings.Contains(s.Key, ".") { // in its mapping's one text
			continue
		}
		f := echoField(d, s.Key)
		switch v := s.Get(q).(type) {
		case int:
			f.SetInt(int64(v))
		case float64:
			f.SetFloat(v)
		case fmt.Stringer: // a duration, a latency, an enumeration
			f.SetString(v.String())
		}
	}
	return d
}

// echoField is the field of d whose json key is key; a setting that
// stats.DeliveryParams has no field for is a program error, which
// TestDeliveryParamsEchoEverySetting reports.
func echoField(d *stats.DeliveryParams, key string) reflect.Value {
	v := reflect.ValueOf(d).Elem()
	for i := range v.NumField() {
		if strings.Split(v.Type().Field(i).Tag.Get("json"), ",")[0] == key {
			return v.Field(i)
		}
	}
	panic(fmt.Sprintf("retrysim: stats.DeliveryParams has no field %q for the queue's setting", key))
}
