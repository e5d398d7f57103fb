package backoff

import (
	"math"
	"testing"
	"time"
)

const ms = time.Millisecond

// Each policy against its definition in the AWS article, with fixed draws.
func TestDelay(t *testing.T) {
	base, cap := 100*ms, 2*time.Second
	tests := []struct {
		kind    Kind
		attempt int
		prev    time.Duration
		u       float64
		want    time.Duration
	}{
		{None, 3, 0, 0.5, 0},
		{Constant, 0, 0, 0.9, 100 * ms},
		{Constant, 7, 0, 0.1, 100 * ms},
		{Exponential, 0, 0, 0.5, 100 * ms},
		{Exponential, 3, 0, 0.5, 800 * ms},
		{Exponential, 5, 0, 0.5, 2 * time.Second}, // 3.2 s capped
		{FullJitter, 0, 0, 0.5, 50 * ms},
		{FullJitter, 2, 0, 0.25, 100 * ms},
		{FullJitter, 9, 0, 0.75, 1500 * ms}, // 0.75 * cap
		{FullJitter, 2, 0, 0, 0},
		{EqualJitter, 0, 0, 0, 50 * ms},
		{EqualJitter, 2, 0, 0.5, 300 * ms}, // 400/2 + 0.5*400/2
		{EqualJitter, 9, 0, 1, 2 * time.Second},
		{Decorrelated, 0, 0, 0, 100 * ms},                  // base + 0*(3*base - base)
		{Decorrelated, 0, 0, 0.5, 200 * ms},                // base + 0.5*(300-100)
		{Decorrelated, 4, 500 * ms, 0.5, 800 * ms},         // 100 + 0.5*(1500-100)
		{Decorrelated, 4, 1500 * ms, 0.9, 2 * time.Second}, // capped
		// Sidekiq 8: "jitter = rand(10 * (count + 1))" after "delay =
		// (count**4) + 15" (sidekiq lib/sidekiq/job_retry.rb, v8.1.7; since
		// v8.0.0, #6513); base and cap are not read. rand(n) is floor(n u).
		{Sidekiq, 0, 0, 0, 15 * time.Second},
		{Sidekiq, 0, 0, 0.99, 24 * time.Second},                // rand(10) = 9
		{Sidekiq, 1, 0, 0.55, (1 + 15 + 11) * time.Second},     // rand(20) = 11, which Sidekiq 7's rand(10) x 2 could not be
		{Sidekiq, 1, 0, 0.99, (1 + 15 + 19) * time.Second},     // rand(20)'s top
		{Sidekiq, 3, 0, 0.5, (81 + 15 + 20) * time.Second},     // rand(40) = 20
		{Sidekiq, 24, 0, 1, (331776 + 15 + 249) * time.Second}, // u = 1 is rand(250)'s top, 249
		// gRPC: "min(initialBackoff*backoffMultiplier**(n-1), maxBackoff) *
		// random(0.8, 1.2)" for the n-th retry (grpc/proposal A6 after #452);
		// grpc-go v1.83.1 stream.go: "cur *= 0.8 + 0.4*rand.Float64()".
		{GRPC, 0, 0, 0, 80 * ms},      // 100 ms x 0.8
		{GRPC, 0, 0, 0.5, 100 * ms},   // x 1.0
		{GRPC, 2, 0, 0.75, 440 * ms},  // 400 ms x 1.1
		{GRPC, 5, 0, 1, 2400 * ms},    // 3.2 s capped at 2 s, x 1.2: above the cap
		{GRPC, 9, 0, 0.25, 1800 * ms}, // 2 s x 0.9
		// River: n^4 s x random(0.9, 1.1), n = attempt + 1.
		{River, 0, 0, 0.5, time.Second},
		{River, 2, 0, 0, 72900 * ms},        // 81 x 0.9
		{River, 2, 0, 0.75, 85050 * ms},     // 81 x (0.9 + 0.2 x 0.75)
		{River, 999, 0, 0.5, math.MaxInt64}, // 1000^4 s saturates
	}
	for _, tt := range tests {
		p := Policy{Kind: tt.kind, Base: base, Cap: cap}
		if got := p.Delay(tt.attempt, tt.prev, tt.u); got != tt.want {
			t.Errorf("%s.Delay(%d, %v, %v) = %v; want %v", tt.kind, tt.attempt, tt.prev, tt.u, got, tt.want)
		}
	}
}

func TestParseKind(t *testing.T) {
	for i, n := range Kinds().Names() {
		if k, err := ParseKind(n); err != nil || k != Kind(i) || k.String() != n {
			t.Errorf("ParseKind(%q) = %v, %v", n, k, err)
		}
	}
	if _, err := ParseKind("linear"); err == nil || err.Error() != `unknown backoff "linear" (want one of none, constant, exponential, full-jitter, equal-jitter, decorrelated, sidekiq, river, grpc)` {
		t.Errorf("ParseKind(linear) error = %v", err)
	}
}

// Longest adds the top of each wait's range: base 2^a capped for the
// exponential family, 3 x the previous (from base) capped for decorrelated.
func TestLongest(t *testing.T) {
	for _, tt := range []struct {
		p    Policy
		n    int
		want time.Duration
	}{
		{Policy{Kind: None, Base: 100 * ms, Cap: time.Second}, 5, 0},
		{Policy{Kind: Constant, Base: 100 * ms, Cap: time.Second}, 2, 200 * ms},
		{Policy{Kind: FullJitter, Base: 100 * ms, Cap: 2 * time.Second}, 3, 700 * ms},
		{Policy{Kind: EqualJitter, Base: 100 * ms, Cap: 300 * ms}, 3, 600 * ms},
		{Policy{Kind: Decorrelated, Base: 100 * ms, Cap: time.Second}, 3, 2200 * ms},
		{Policy{Kind: GRPC, Base: 100 * ms, Cap: 300 * ms}, 3, 720 * ms}, // (100 + 200 + 300) x 1.2
		{Policy{Kind: Constant, Base: time.Duration(math.MaxInt64 / 2), Cap: time.Second}, 3, math.MaxInt64},
		{Policy{Kind: FullJitter, Base: 100 * ms, Cap: 2 * time.Second}, 0, 0},
	} {
		if got := tt.p.Longest(tt.n); got != tt.want {
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
		kind    Kind
		retries int
		want    time.Duration
	}{
		{Sidekiq, 25, time.Duration(fourth+25*15+5*325) * time.Second},
		{River, 24, time.Duration(fourth) * time.Second},
	} {
		var sum time.Duration
		for a := range tt.retries {
			sum += Policy{Kind: tt.kind}.Delay(a, 0, 0.5)
		}
		if d := sum - tt.want; d < -time.Microsecond || d > time.Microsecond {
			t.Errorf("%s: %d retries wait %v; want %v", tt.kind, tt.retries, sum, tt.want)
		}
	}
	if got := (Policy{Kind: Sidekiq}).Delay(0, 0, 0.5) + (Policy{Kind: Sidekiq}).Delay(1, 0, 0.5); got != 46*time.Second {
		t.Errorf("Sidekiq's first two waits at u = 0.5: %v; want 20 s + 26 s", got)
	}
	if !Sidekiq.Schedule() || !River.Schedule() || FullJitter.Schedule() {
		t.Errorf("Schedule: sidekiq %v, river %v, full-jitter %v; want true, true, false", Sidekiq.Schedule(), River.Schedule(), FullJitter.Schedule())
	}
}

// Unread says a kind never reads its base (or cap) exactly when no wait
// Delay computes changes with it: checked over the first ten retries, draws
// 0, 0.5 and 0.99, and previous waits 0 and 3s, base 100ms against 1s and
// cap 2s against 20s. So the rule flags and files refuse by is the formulas'.
func TestUnreadIsWhatDelayNeverReads(t *testing.T) {
	reads := func(a, b Policy) bool {
		for n := range 10 {
			for _, u := range []float64{0, 0.5, 0.99} {
				for _, prev := range []time.Duration{0, 3 * time.Second} {
					if a.Delay(n, prev, u) != b.Delay(n, prev, u) {
						return true
					}
				}
			}
		}
		return false
	}
	for k := range Kind(len(Kinds().Names())) {
		p := Policy{Kind: k, Base: 100 * time.Millisecond, Cap: 2 * time.Second}
		base, cap := p, p
		base.Base, cap.Cap = time.Second, 20*time.Second
		baseWhy, capWhy := k.Unread()
		if got, want := baseWhy == "", reads(p, base); got != want {
			t.Errorf("%v: Unread says base read %v (%q); Delay reads it: %v", k, got, baseWhy, want)
		}
		if got, want := capWhy == "", reads(p, cap); got != want {
			t.Errorf("%v: Unread says cap read %v (%q); Delay reads it: %v", k, got, capWhy, want)
		}
	}
}
