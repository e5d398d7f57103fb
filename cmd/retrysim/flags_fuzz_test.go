package main

import (
	"flag"
	"fmt"
	"testing"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/sim"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

// flagValues are the flag.Value parsers the commands use, each new and with
// a check of what it holds after accepting a value.
var flagValues = []struct {
	name  string
	new   func() flag.Value
	valid func(v flag.Value) error
}{
	{"count", func() flag.Value { c := count(1); return &c }, func(v flag.Value) error { return sim.CheckJobs(int64(*v.(*count))) }},
	{"bounded", func() flag.Value { return &bounded{v: 3, lo: 1, hi: sim.MaxAttempts} }, func(v flag.Value) error {
		b := v.(*bounded)
		return sim.CheckAttempts(b.v)
	}},
	{"seed", func() flag.Value { return new(seed) }, func(flag.Value) error { return nil }},
	{"probability", func() flag.Value { return new(probability) }, func(v flag.Value) error { return provider.CheckProbability(float64(*v.(*probability))) }},
	{"duration", func() flag.Value { return new(durationFlag) }, func(v flag.Value) error {
		if d := v.(*durationFlag).v; d < 0 {
			return fmt.Errorf("negative %v", d)
		}
		return nil
	}},
	{"latency", func() flag.Value { return new(latencyFlag) }, func(v flag.Value) error {
		l := v.(*latencyFlag).v
		if l.P99 != 0 && l.P99 < l.Median {
			return fmt.Errorf("p99 %v below the median %v", l.P99, l.Median)
		}
		return l.Check()
	}},
	{"strategies", func() flag.Value { return new(strategyList) }, func(v flag.Value) error {
		for _, id := range *v.(*strategyList) {
			if _, err := strategy.Parse(id, 1); err != nil {
				return err
			}
		}
		return nil
	}},
	{"rng", func() flag.Value { return &choice{valid: validRNG} }, func(v flag.Value) error { return validRNG(v.String()) }},
	{"format", func() flag.Value { f := newFormatFlag(render.ReportDoc); return &f }, func(v flag.Value) error {
		_, err := render.Lookup(render.ReportDoc, v.String())
		return err
	}},
	{"preset", func() flag.Value { return &choice{valid: validPreset} }, func(v flag.Value) error { return validPreset(v.String()) }},
	{"engine", func() flag.Value { return &engineFlag{new(sim.Engine)} }, func(v flag.Value) error {
		_, err := sim.ParseEngine(v.String())
		return err
	}},
	{"shard", func() flag.Value { return new(shard) }, func(v flag.Value) error { return sim.Shard(*v.(*shard)).Check() }},
	{"backoff", func() flag.Value {
		return &nameFlag[backoff.Kind]{parse: backoff.ParseKind, text: backoff.Kind.String}
	}, func(flag.Value) error { return nil }},
	{"store", func() flag.Value {
		return &nameFlag[delivery.Store]{parse: delivery.ParseStore, text: delivery.Store.String}
	}, func(flag.Value) error { return nil }},
	{"crash-at", func() flag.Value {
		return &nameFlag[delivery.CrashPoint]{parse: delivery.ParseCrashPoint, text: delivery.CrashPoint.String}
	}, func(flag.Value) error { return nil }},
}

// FuzzFlagValue gives one string to every flag.Value parser: none panics, a
// value one accepts is within its bounds, and what String then prints is
// accepted again and printed the same (so -help's defaults and echoed
// parameters read back).
func FuzzFlagValue(f *testing.F) {
	for _, s := range []string{
		// From TestBadInput, TestEngineAndShardFlags and the queue tests.
		"1.5", "-0.1", "NaN", "often", "2", "Inf", "0", "-5", "1e13", "9223372036854775808", "2.5", "lots",
		"1001", "-1", "mt19937", "step-nokey,retry-harder", "", "xml", "fast", "8/8", "1/", "1/4x", "1/4",
		"1000000/1000001", "auto", "skip", "plain", "mulberry32", "pcg", "xexp", "sqlite-check",
		// Valid values of every kind.
		"1e6", "1_000_000", "1,000,000", " 7 ", "0.01", "250ms", "24h", "20ms:200ms", "200ms:20ms", "0s:5s", "1s:1s",
		"job-samekey-skip", "step-nokey, job-samekey", "json", "exponential", "full-jitter", "claim", "lease", "after-key",
		"18446744073709551615", "-9223372036854775808ns", "2562047h47m16.854775807s",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, fv := range flagValues {
			v := fv.new()
			if v.Set(s) != nil {
				continue
			}
			if err := fv.valid(v); err != nil {
				t.Errorf("%s: Set(%q) accepted a value out of bounds: %v", fv.name, s, err)
			}
			text := v.String()
			again := fv.new()
			if err := again.Set(text); err != nil || again.String() != text {
				t.Errorf("%s: Set(%q) prints %q, which Set reads as %q, %v", fv.name, s, text, again.String(), err)
			}
		}
	})
}
