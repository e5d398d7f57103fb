package waits

import (
	"math"
	"testing"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/internal/backoffkind"
	"github.com/retrysim/retrysim/internal/enum"
)

const ms = time.Millisecond

// almostOne is the largest draw below 1.
var almostOne = math.Nextafter(1, 0)

// Each policy against its definition in the AWS article, with fixed draws.
func TestDelay(t *testing.T) {
	base, cap := 100*ms, 2*time.Second
	tests := []struct {
		kind    backoff.Kind
		attempt int
		prev    time.Duration
		u       float64
		want    time.Duration
	}{
		{backoff.None, 3, 0, 0.5, 0},
		{backoff.Constant, 0, 0, 0.9, 100 * ms},
		{backoff.Constant, 7, 0, 0.1, 100 * ms},
		{backoff.Exponential, 0, 0, 0.5, 100 * ms},
		{backoff.Exponential, 3, 0, 0.5, 800 * ms},
		{backoff.Exponential, 5, 0, 0.5, 2 * time.Second}, // 3.2 s capped
		{backoff.FullJitter, 0, 0, 0.5, 50 * ms},
		{backoff.FullJitter, 2, 0, 0.25, 100 * ms},
		{backoff.FullJitter, 9, 0, 0.75, 1500 * ms}, // 0.75 * cap
		{backoff.FullJitter, 2, 0, 0, 0},
		{backoff.EqualJitter, 0, 0, 0, 50 * ms},
		{backoff.EqualJitter, 2, 0, 0.5, 300 * ms}, // 400/2 + 0.5*400/2
		{backoff.EqualJitter, 9, 0, 1, 2 * time.Second},
		{backoff.Decorrelated, 0, 0, 0, 100 * ms},                  // base + 0*(3*base - base)
		{backoff.Decorrelated, 0, 0, 0.5, 200 * ms},                // base + 0.5*(300-100)
		{backoff.Decorrelated, 4, 500 * ms, 0.5, 800 * ms},         // 100 + 0.5*(1500-100)
		{backoff.Decorrelated, 4, 1500 * ms, 0.9, 2 * time.Second}, // capped
		// Sidekiq 8: "jitter = rand(10 * (count + 1))" after "delay =
		// (count**4) + 15" (sidekiq lib/sidekiq/job_retry.rb, v8.1.7; since
		// v8.0.0, #6513); base and cap are not read. rand(n) is floor(n u).
		{backoff.Sidekiq, 0, 0, 0, 15 * time.Second},
		{backoff.Sidekiq, 0, 0, 0.99, 24 * time.Second},                // rand(10) = 9
		{backoff.Sidekiq, 1, 0, 0.55, (1 + 15 + 11) * time.Second},     // rand(20) = 11, which Sidekiq 7's rand(10) x 2 could not be
		{backoff.Sidekiq, 1, 0, 0.99, (1 + 15 + 19) * time.Second},     // rand(20)'s top
		{backoff.Sidekiq, 3, 0, 0.5, (81 + 15 + 20) * time.Second},     // rand(40) = 20
		{backoff.Sidekiq, 24, 0, 1, (331776 + 15 + 249) * time.Second}, // u = 1 is rand(250)'s top, 249
		// gRPC: "min(initialBackoff*backoffMultiplier**(n-1), maxBackoff) *
		// random(0.8, 1.2)" for the n-th retry (grpc/proposal A6 after #452);
		// grpc-go v1.83.1 stream.go: "cur *= 0.8 + 0.4*rand.Float64()".
		{backoff.GRPC, 0, 0, 0, 80 * ms},      // 100 ms x 0.8
		{backoff.GRPC, 0, 0, 0.5, 100 * ms},   // x 1.0
		{backoff.GRPC, 2, 0, 0.75, 440 * ms},  // 400 ms x 1.1
		{backoff.GRPC, 5, 0, 1, 2400 * ms},    // 3.2 s capped at 2 s, x 1.2: above the cap
		{backoff.GRPC, 9, 0, 0.25, 1800 * ms}, // 2 s x 0.9
		// River: n^4 s x random(0.9, 1.1), n = attempt + 1.
		{backoff.River, 0, 0, 0.5, time.Second},
		{backoff.River, 2, 0, 0, 72900 * ms},        // 81 x 0.9
		{backoff.River, 2, 0, 0.75, 85050 * ms},     // 81 x (0.9 + 0.2 x 0.75)
		{backoff.River, 999, 0, 0.5, math.MaxInt64}, // 1000^4 s saturates
		// Oban v2.23.1, lib/oban/worker.ex: backoff/1 is
		// Backoff.exponential(attempt, mult: 1, max_pow: 100, min_pad: 15)
		// = 15 + 2^attempt, then Backoff.jitter(mode: :inc) = time +
		// trunc(rand * 0.1 * time) (lib/oban/backoff.ex), with Oban's
		// attempt (from 1) one more than the retry here.
		{backoff.Oban, 0, 0, 0, 17 * time.Second},              // 15 + 2
		{backoff.Oban, 0, 0, 0.999, 18 * time.Second},          // 17 + trunc(1.698)
		{backoff.Oban, 1, 0, 0.5, 19 * time.Second},            // 19 + trunc(0.95)
		{backoff.Oban, 4, 0, 0.5, 49 * time.Second},            // 47 + trunc(2.35)
		{backoff.Oban, 4, 0, 0.999, 51 * time.Second},          // 47 + trunc(4.695)
		{backoff.Oban, 9, 0, 0, 1039 * time.Second},            // 15 + 1024
		{backoff.Oban, 9, 0, 0.999, 1142 * time.Second},        // 1039 + trunc(103.796)
		{backoff.Oban, 18, 0, 0.999, 576680 * time.Second},     // 524303 + trunc(52377.87)
		{backoff.Oban, 18, 0, almostOne, 576733 * time.Second}, // 524303 + 52430: "6 days and 16 hours"
		{backoff.Oban, 99, 0, 0, math.MaxInt64},                // 15 + 2^100 s saturates
		{backoff.Oban, 5000, 0, 0, math.MaxInt64},              // the power stops at max_pow 100
		// Temporal's default activity retry policy (server v1.31.2,
		// common/retrypolicy/retry_policy.go: InitialInterval 1 s,
		// BackoffCoefficient 2, MaximumIntervalCoefficient 100;
		// common/backoff/retry.go: initInterval x coefficient^(attempt - 1)
		// for Temporal's attempt from 1, capped at the maximum interval, no
		// jitter): base, cap and draw are not read.
		{backoff.Temporal, 0, 0, 0, time.Second},
		{backoff.Temporal, 0, 0, 0.999, time.Second},
		{backoff.Temporal, 1, 0, 0.5, 2 * time.Second},
		{backoff.Temporal, 5, 0, 0, 32 * time.Second},
		{backoff.Temporal, 6, 0, 0.999, 64 * time.Second},
		{backoff.Temporal, 7, 0, 0, 100 * time.Second}, // 128 s capped
		{backoff.Temporal, 30, 0, 0.5, 100 * time.Second},
		{backoff.Temporal, 998, 0, 0.5, 100 * time.Second},
	}
	for _, tt := range tests {
		p := backoff.Schedule{Kind: tt.kind, Base: base, Cap: cap}
		if got := Delay(p, tt.attempt, tt.prev, tt.u); got != tt.want {
			t.Errorf("%s.Delay(%d, %v, %v) = %v; want %v", tt.kind, tt.attempt, tt.prev, tt.u, got, tt.want)
		}
	}
}

// Longest adds the top of each wait's range: base 2^a capped for the
// exponential family, 3 x the previous (from base) capped for decorrelated.
func TestLongest(t *testing.T) {
	for _, tt := range []struct {
		p    backoff.Schedule
		n    int
		want time.Duration
	}{
		{backoff.Schedule{Kind: backoff.None, Base: 100 * ms, Cap: time.Second}, 5, 0},
		{backoff.Schedule{Kind: backoff.Constant, Base: 100 * ms, Cap: time.Second}, 2, 200 * ms},
		{backoff.Schedule{Kind: backoff.FullJitter, Base: 100 * ms, Cap: 2 * time.Second}, 3, 700 * ms},
		{backoff.Schedule{Kind: backoff.EqualJitter, Base: 100 * ms, Cap: 300 * ms}, 3, 600 * ms},
		{backoff.Schedule{Kind: backoff.Decorrelated, Base: 100 * ms, Cap: time.Second}, 3, 2200 * ms},
		{backoff.Schedule{Kind: backoff.GRPC, Base: 100 * ms, Cap: 300 * ms}, 3, 720 * ms}, // (100 + 200 + 300) x 1.2
		{backoff.Schedule{Kind: backoff.Constant, Base: time.Duration(math.MaxInt64 / 2), Cap: time.Second}, 3, math.MaxInt64},
		{backoff.Schedule{Kind: backoff.FullJitter, Base: 100 * ms, Cap: 2 * time.Second}, 0, 0},
		{backoff.Schedule{Kind: backoff.Oban}, 2, 38 * time.Second},                     // (17 + 1) + (19 + 1)
		{backoff.Schedule{Kind: backoff.Temporal}, 9, 327 * time.Second},                // 1 + 2 + ... + 64 + 100 + 100
		{backoff.Schedule{Kind: backoff.Temporal}, 1000, (127 + 993*100) * time.Second}, // seven doublings, then 100 s each
	} {
		if got := Longest(tt.p, tt.n); got != tt.want {
			t.Errorf("%v base %v cap %v: Longest(%d) = %v; want %v", tt.p.Kind, tt.p.Base, tt.p.Cap, tt.n, got, tt.want)
		}
	}
}

// The schedules' totals against their published figures. Sidekiq's 25
// retries with u = 0.5 (rand(10 (c + 1)) = 5 (c + 1), as Sidekiq 7's
// rand(10) x (c + 1) at its middle, 5) wait sum_{c<25} (c^4 + 15 + 5 (c +
// 1)) = N(N+1)(2N+1)(3N^2+3N-1)/30 + 25 x 15 + 5 x 325 for N = 24, which is
// 1,765,020 s, the "20d 10h 17m" of the schedule tables Sidekiq's users
// publish ("25 retries over approximately 21 days", Sidekiq's wiki). River's
// 25 attempts (24 retries) with no jitter (u = 0.5) wait sum_{n<=24} n^4 =
// 1,763,020 s, about 20.4 days.
func TestScheduleTotals(t *testing.T) {
	const n = 24
	fourth := n * (n + 1) * (2*n + 1) * (3*n*n + 3*n - 1) / 30
	for _, tt := range []struct {
		kind    backoff.Kind
		retries int
		want    time.Duration
	}{
		{backoff.Sidekiq, 25, time.Duration(fourth+25*15+5*325) * time.Second},
		{backoff.River, 24, time.Duration(fourth) * time.Second},
	} {
		var sum time.Duration
		for a := range tt.retries {
			sum += Delay(backoff.Schedule{Kind: tt.kind}, a, 0, 0.5)
		}
		if d := sum - tt.want; d < -time.Microsecond || d > time.Microsecond {
			t.Errorf("%s: %d retries wait %v; want %v", tt.kind, tt.retries, sum, tt.want)
		}
	}
	if got := Delay(backoff.Schedule{Kind: backoff.Sidekiq}, 0, 0, 0.5) + Delay(backoff.Schedule{Kind: backoff.Sidekiq}, 1, 0, 0.5); got != 46*time.Second {
		t.Errorf("Sidekiq's first two waits at u = 0.5: %v; want 20 s + 26 s", got)
	}
	if !backoffkind.Schedule(backoff.Sidekiq.String()) || !backoffkind.Schedule(backoff.River.String()) || backoffkind.Schedule(backoff.FullJitter.String()) {
		t.Errorf("Schedule: sidekiq %v, river %v, full-jitter %v; want true, true, false", backoffkind.Schedule(backoff.Sidekiq.String()), backoffkind.Schedule(backoff.River.String()), backoffkind.Schedule(backoff.FullJitter.String()))
	}
}

// Unread says a kind never reads its base (or cap) exactly when no wait
// Delay computes changes with it: checked over the first ten retries, draws
// 0, 0.5 and 0.99, and previous waits 0 and 3s, base 100ms against 1s and
// cap 2s against 20s. So the rule flags and files refuse by is the formulas'.
func TestUnreadIsWhatDelayNeverReads(t *testing.T) {
	reads := func(a, b backoff.Schedule) bool {
		for n := range 10 {
			for _, u := range []float64{0, 0.5, 0.99} {
				for _, prev := range []time.Duration{0, 3 * time.Second} {
					if Delay(a, n, prev, u) != Delay(b, n, prev, u) {
						return true
					}
				}
			}
		}
		return false
	}
	for k := range backoff.Kind(len(enum.Names[backoff.Kind]())) {
		p := backoff.Schedule{Kind: k, Base: 100 * time.Millisecond, Cap: 2 * time.Second}
		base, cap := p, p
		base.Base, cap.Cap = time.Second, 20*time.Second
		baseWhy, capWhy := backoffkind.Unread(k.String())
		if got, want := baseWhy == "", reads(p, base); got != want {
			t.Errorf("%v: Unread says base read %v (%q); Delay reads it: %v", k, got, baseWhy, want)
		}
		if got, want := capWhy == "", reads(p, cap); got != want {
			t.Errorf("%v: Unread says cap read %v (%q); Delay reads it: %v", k, got, capWhy, want)
		}
	}
}

// Oban's documentation of its default backoff (lib/oban/worker.ex, v2.23.1,
// "Customizing Backoff"): "With the default backoff behavior and the
// maximum amount of jitter, the 20th attempt will occur 6 days and 16
// hours after the 19th attempt, and a total of 13 days and 8 hours after
// the first attempt." The top wait after attempt a is t + floor(t / 10), t =
// 15 + 2^a (0.1 x t is never whole, as 2^a ends in 2, 4, 6 or 8), written
// here in whole seconds; Longest adds the same tops. Temporal's first ten
// retries wait 1 + 2 + ... + 64 + 3 x 100 = 427 s, at any draw.
func TestObanTemporalTotals(t *testing.T) {
	var want int64
	for a := int64(1); a <= 19; a++ {
		top := 15 + int64(1)<<a
		want += top + top/10
	}
	got := Longest(backoff.Schedule{Kind: backoff.Oban}, 19)
	if got != time.Duration(want)*time.Second {
		t.Errorf("oban: the 19 retries of max_attempts 20 wait at most %v; want %d s", got, want)
	}
	day := 24 * time.Hour
	if lo, hi := 13*day+8*time.Hour, 13*day+9*time.Hour; got < lo || got >= hi {
		t.Errorf("oban: %v in all, not the 13 days and 8 hours Oban documents", got)
	}
	if last := Delay(backoff.Schedule{Kind: backoff.Oban}, 18, 0, almostOne); last < 6*day+16*time.Hour || last >= 6*day+17*time.Hour {
		t.Errorf("oban: the wait before the 20th attempt is %v, not the 6 days and 16 hours Oban documents", last)
	}
	for _, u := range []float64{0, 0.5, almostOne} {
		var sum time.Duration
		for n := range 10 {
			sum += Delay(backoff.Schedule{Kind: backoff.Temporal}, n, 0, u)
		}
		if sum != 427*time.Second {
			t.Errorf("temporal: ten retries at draw %v wait %v; want 427 s", u, sum)
		}
	}
}

// Jittered is true exactly for the kinds whose Delay changes with the draw:
// over the first 30 retries, draws 0, 0.5 and almost 1.
func TestJitteredIsWhatDelayReads(t *testing.T) {
	for k := range backoff.Kind(len(enum.Names[backoff.Kind]())) {
		p := backoff.Schedule{Kind: k, Base: 100 * ms, Cap: 20 * time.Second}
		reads := false
		for n := range 30 {
			d := Delay(p, n, time.Second, 0)
			reads = reads || d != Delay(p, n, time.Second, 0.5) || d != Delay(p, n, time.Second, almostOne)
		}
		if Jittered(p) != reads {
			t.Errorf("%v: Jittered() = %v; Delay reads its draw: %v", k, Jittered(p), reads)
		}
	}
}

// The new schedules are schedules: Unread names them, Check takes them
// with any base and cap (the settings refuse those by Unread), and refuses
// a kind past the last.
func TestObanTemporalCheckUnread(t *testing.T) {
	for _, tt := range []struct {
		k    backoff.Kind
		name string
	}{{backoff.Oban, "oban"}, {backoff.Temporal, "temporal"}} {
		if k, err := enum.Parse[backoff.Kind](tt.name); err != nil || k != tt.k {
			t.Errorf("Parse(%q) = %v, %v", tt.name, k, err)
		}
		if !backoffkind.Schedule(tt.k.String()) {
			t.Errorf("%s is not a schedule", tt.name)
		}
		want := "the " + tt.name + " schedule sets its own waits, in seconds by attempt"
		if base, cap := backoffkind.Unread(tt.k.String()); base != want || cap != want {
			t.Errorf("%s.Unread() = %q, %q; want %q twice", tt.name, base, cap, want)
		}
		if err := (backoff.Schedule{Kind: tt.k, Base: 2 * time.Second, Cap: time.Second}).Check(); err != nil {
			t.Errorf("%s with a cap below its base: Check() = %v; want nil, as for sidekiq", tt.name, err)
		}
	}
	err := backoff.Schedule{Kind: backoff.Temporal + 1}.Check()
	if want := "policy: 11 is not a backoff (want one of none, constant, exponential, full-jitter, equal-jitter, decorrelated, sidekiq, river, grpc, oban, temporal)"; err == nil || err.Error() != want {
		t.Errorf("Check of kind 11 = %v; want %q", err, want)
	}
}

// Every policy waits 0 or more, whatever the retry up to the most attempts
// any model allows (1,000), the draw and the previous wait; a schedule's
// wait never shrinks from one retry to the next at one draw.
func TestDelayNeverNegative(t *testing.T) {
	prevs := []time.Duration{0, 100 * ms, 8760 * time.Hour, math.MaxInt64}
	for k := range backoff.Kind(len(enum.Names[backoff.Kind]())) {
		p := backoff.Schedule{Kind: k, Base: 100 * ms, Cap: 8760 * time.Hour}
		for _, u := range []float64{0, 0.5, almostOne} {
			var last time.Duration
			for n := range 1000 {
				for _, prev := range prevs {
					if d := Delay(p, n, prev, u); d < 0 {
						t.Fatalf("%v.Delay(%d, %v, %v) = %v", k, n, prev, u, d)
					}
				}
				d := Delay(p, n, 0, u)
				if backoffkind.Schedule(k.String()) && d < last {
					t.Fatalf("%v: retry %d waits %v at draw %v, less than retry %d's %v", k, n, d, u, n-1, last)
				}
				last = d
			}
		}
	}
}

// FuzzDelay: no policy panics or waits less than 0, for any retry up to
// 999, draw in [0, 1), base and cap up to 8760h (the settings' bound) and
// previous wait.
func FuzzDelay(f *testing.F) {
	f.Add(uint8(9), uint16(3), 0.5, int64(100*ms), int64(2*time.Second), int64(0))
	f.Add(uint8(10), uint16(999), 0.999, int64(0), int64(0), int64(math.MaxInt64))
	f.Fuzz(func(t *testing.T, kind uint8, attempt uint16, u float64, base, cap, prev int64) {
		if math.IsNaN(u) || u < 0 || u >= 1 {
			return
		}
		bound := int64(8760 * time.Hour)
		p := backoff.Schedule{Kind: backoff.Kind(int(kind) % len(enum.Names[backoff.Kind]())), Base: time.Duration(abs(base) % bound), Cap: time.Duration(abs(cap) % bound)}
		if d := Delay(p, int(attempt)%1000, time.Duration(abs(prev)), u); d < 0 {
			t.Fatalf("%+v.Delay(%d, %d, %v) = %v", p, attempt%1000, prev, u, d)
		}
	})
}

// abs is |x|, with the most negative int64 taken to 0.
func abs(x int64) int64 {
	if x < 0 {
		return max(0, -x)
	}
	return x
}
