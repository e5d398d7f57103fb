package retrysim

import (
	"fmt"
	"strings"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/stats"
)

// deliveryParams is q as outputs echo it, under its settings' scenario keys, with latency, how long
// the steps' calls take.
func deliveryParams(q delivery.Config, latency string) *stats.DeliveryParams {
	d := &stats.DeliveryParams{Settings: stats.Settings{}, Backoff: backoffText(q.Backoff), Latency: latency}
	for _, s := range decl.Settings[delivery.Config]() {
		if strings.Contains(s.Key, ".") { // in its mapping's one text
			continue
		}
		var echo any
		switch v := s.Get(q).(type) {
		case int:
			echo = int64(v)
		case float64:
			echo = v
		case fmt.Stringer: // a duration, a latency, an enumeration
			echo = v.String()
		default:
			panic(fmt.Sprintf("retrysim: the queue's setting %s is a %T, which outputs cannot echo", s.Name, v))
		}
		d.Settings = append(d.Settings, stats.Setting{Key: s.Key, Value: echo})
	}
	return d
}
