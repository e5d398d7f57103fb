package fleet

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/retrysim/retrysim/backoff"
)

// Preset is a named set of runs, with its source.
type Preset struct {
	Name, Source string
	// Runs builds the runs for a duration in seconds.
	Runs func(duration float64) []Config
	// Duration and Replicates are the defaults the source used.
	Duration   float64
	Replicates int
}

// BrookerCollapse is the "simple collapse" simulation of M. Brooker,
// "Metastability and distributed systems" (brooker.co.za, 2021), and
// its simulator_example: a server whose latency is 1 s + 0.01 s a call in
// progress, network delay exponential with mean 0.1 s each way, a 3 s
// timeout and 3 tries in all, without backoff or with a wait uniform in
// [0, b], b = 20 s on the first retry and doubling after (full jitter, no cap).
var BrookerCollapse = Preset{
	Name: "brooker-collapse",
	Source: "M. Brooker, \"Metastability and distributed systems\", brooker.co.za 2021 (simple collapse): " +
		"latency 1 s + 0.01 s per call in progress, network 0.1 s each way, timeout 3 s, 3 tries; " +
		"ramp 80 - 1.6 |t - 25| a second, or 40 a second with 80 from t = 20 s for 5 s; no backoff, or uniform in [0, b], b = 20 s doubling",
	Duration:   80,
	Replicates: 10,
	Runs: func(d float64) []Config {
		base := Config{
			Duration: d,
			Server:   Server{Kind: Latency, Base: 1, Slope: 0.01},
			Client:   Client{Clients: 1, Timeout: 3, Attempts: 3},
			Net:      0.1,
		}
		ramp := Shape{Kind: Ramp, Rate: 40, Peak: 80, From: 0, To: 50}
		spike := Shape{Kind: Spike, Rate: 40, Peak: 80, From: 20, To: 25}
		jitter := backoff.Policy{Kind: backoff.FullJitter, Base: 20 * time.Second, Cap: NoCap}
		var runs []Config
		for _, load := range []struct {
			name  string
			shape Shape
		}{{"ramp", ramp}, {"spike", spike}} {
			for _, b := range []struct {
				name   string
				policy backoff.Policy
			}{{"no_backoff", backoff.Policy{}}, {"backoff_and_jitter", jitter}} {
				c := base
				c.Name = load.name + "_" + b.name
				c.Load = load.shape
				c.Client.Backoff = b.policy
				runs = append(runs, c)
			}
		}
		return runs
	},
}

// Presets lists the presets.
func Presets() []Preset { return []Preset{BrookerCollapse} }

// LookupPreset returns the preset called name.
func LookupPreset(name string) (Preset, error) {
	ps := Presets()
	if i := slices.IndexFunc(ps, func(p Preset) bool { return p.Name == name }); i >= 0 {
		return ps[i], nil
	}
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	return Preset{}, fmt.Errorf("unknown preset %q (want %s)", name, strings.Join(names, ", "))
}
