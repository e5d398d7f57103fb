package retrysim_test

import (
	"context"
	"encoding/binary"
	"math"
	"testing"
	"time"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/enum"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

// fuzzBytes hands out the fuzzer's bytes as numbers, zeros once they run out.
type fuzzBytes []byte

func (b *fuzzBytes) u64() uint64 {
	var buf [8]byte
	n := copy(buf[:], *b)
	*b = (*b)[n:]
	return binary.LittleEndian.Uint64(buf[:])
}

// small is a whole number from lo to hi.
func (b *fuzzBytes) small(lo, hi int) int { return lo + int(b.u64()%uint64(hi-lo+1)) }

// wild reports, one time in 32, that the next value is to be one a check
// refuses, so that most experiments are valid and each refusal is reached.
// Once the bytes run out, nothing is wild.
func (b *fuzzBytes) wild() bool { return len(*b) > 0 && b.u64()%32 == 0 }

// enum is one of n values, or at times one out of range.
func (b *fuzzBytes) enum(n int) int {
	if b.wild() {
		return []int{-1, n, n + 5}[b.small(0, 2)]
	}
	return b.small(0, n-1)
}

// name is one of names, or at times unknown.
func (b *fuzzBytes) name(unknown string, names ...string) string {
	if b.wild() {
		return unknown
	}
	return names[b.small(0, len(names)-1)]
}

// count is from lo to hi, or at times just outside.
func (b *fuzzBytes) count(lo, hi int) int {
	if b.wild() {
		return []int{lo - 1, hi + 1}[b.small(0, 1)]
	}
	return b.small(lo, hi)
}

// prob is a probability, 0 and 1 often, or at times one outside [0, 1] or NaN.
func (b *fuzzBytes) prob() float64 {
	if b.wild() {
		return []float64{math.NaN(), -0.5, 1.5, math.Inf(1)}[b.small(0, 3)]
	}
	switch v := b.u64(); v % 4 {
	case 0:
		return 0
	case 1:
		return 1
	default:
		return float64(v%1001) / 1000
	}
}

// duration is short, often 0, or at times negative or beyond any bound.
func (b *fuzzBytes) duration() time.Duration {
	if b.wild() {
		return []time.Duration{-time.Nanosecond, math.MaxInt64, 200 * 365 * 24 * time.Hour}[b.small(0, 2)]
	}
	switch v := b.u64(); v % 4 {
	case 0:
		return 0
	default:
		return time.Duration(v % uint64(5*time.Second))
	}
}

func (b *fuzzBytes) latency() provider.Latency {
	switch b.small(0, 3) {
	case 0:
		median := b.duration()
		return provider.Latency{Median: median, P99: median + b.duration()}
	case 1:
		return provider.Latency{Median: b.duration()}
	}
	return provider.Latency{}
}

func (b *fuzzBytes) backoff() backoff.Policy {
	p := backoff.Policy{Kind: backoff.Kind(b.enum(len(enum.Names[backoff.Kind]()))), Base: b.duration(), Cap: b.duration()}
	if !b.wild() && p.Cap != 0 && p.Cap < p.Base {
		p.Cap = p.Base
	}
	return p
}

// FuzzCheckRun builds experiments from the public types, enums from any
// small int, durations and probabilities valid or not, random steps and
// their policies, with or without a delivery model, and holds Check to its
// promise: whatever it accepts, Run runs without panicking.
func FuzzCheckRun(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x02\x00\x00\x00\x00\x00\x00\x00\x07"))
	f.Add([]byte("\x01\x03\x00\x00\x00\x00\x00\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a"))
	f.Fuzz(func(t *testing.T, data []byte) {
		e := build(data)
		if e.Check() != nil {
			return
		}
		if _, err := retrysim.Run(context.Background(), e); err != nil {
			t.Fatalf("Check accepted %+v, and Run failed: %v", e, err)
		}
		e.Params() // a report's echo of what ran
	})
}

// build is the experiment data describes.
func build(data []byte) retrysim.Experiment {
	b := fuzzBytes(data)
	timed := b.small(0, 1) == 1
	var strategies []strategy.Strategy
	for i := range b.small(1, 3) {
		strategies = append(strategies, strategy.Retry{Scope: strategy.Scope(b.enum(2)), Keys: schema.KeyMode(b.enum(3)),
			Attempts: b.count(1, 4), SkipFinished: b.small(0, 1) == 1, Label: string(rune('a' + i))})
	}
	sc := provider.Scenario{Name: "fuzz", Noun: "jobs"}
	for i := range b.count(1, 5) {
		st := provider.Step{Name: string(rune('A' + i)), PFail: b.prob(), CanLoseReply: b.small(0, 1) == 1, LostReply: b.prob(),
			HonoursKeys: b.small(0, 1) == 1, Latency: b.latency()}
		st.Policy.Attempts = b.count(0, 4)
		if b.small(0, 1) == 1 {
			k := schema.KeyMode(b.enum(3))
			st.Policy.Keys = &k
		}
		if b.small(0, 1) == 1 {
			p := b.backoff()
			st.Policy.Backoff = &p
		}
		sc.Steps = append(sc.Steps, st)
	}
	for i := range min(b.count(1, 2), len(sc.Steps)) {
		sc.Watched = append(sc.Watched, provider.Watch{Step: i})
		if b.wild() {
			sc.Watched[i].Step = b.small(-1, 6)
		}
	}
	e := retrysim.Experiment{Scenario: sc, Strategies: strategies, Jobs: int64(b.count(1, 20)), Seed: b.u64(),
		Generator: b.name("dice", "", "pcg", "mulberry32", "xexp"),
		Engine:    b.name("fast", "", "auto", "plain", "skip"), Replicates: b.count(0, 2), Workers: 1}
	if timed {
		q := delivery.Config{Store: delivery.Store(b.enum(5)), TTL: b.duration(), Lease: b.duration() + time.Millisecond, Visibility: b.duration() + time.Millisecond,
			MaxDeliveries: b.count(1, 12), RepeatP: b.prob(), RepeatDelay: b.latency(), CrashP: b.prob(),
			CrashAt: delivery.CrashPoint(b.enum(4)), MaxCrashes: b.count(0, 4), Backoff: b.backoff()}
		e.Delivery = &q
	} else if !b.wild() {
		for i := range e.Scenario.Steps {
			e.Scenario.Steps[i].Latency = provider.Latency{}
		}
	}
	return e
}
