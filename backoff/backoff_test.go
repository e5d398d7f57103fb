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
	}
	for _, tt := range tests {
		p := Policy{Kind: tt.kind, Base: base, Cap: cap}
		if got := p.Delay(tt.attempt, tt.prev, tt.u); got != tt.want {
			t.Errorf("%s.Delay(%d, %v, %v) = %v; want %v", tt.kind, tt.attempt, tt.prev, tt.u, got, tt.want)
		}
	}
}

func TestParseKind(t *testing.T) {
	for i, n := range names {
		if k, err := ParseKind(n); err != nil || k != Kind(i) || k.String() != n {
			t.Errorf("ParseKind(%q) = %v, %v", n, k, err)
		}
	}
	if _, err := ParseKind("linear"); err == nil || err.Error() != `unknown backoff "linear" (want one of none, constant, exponential, full-jitter, equal-jitter, decorrelated)` {
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
		{Policy{Kind: Constant, Base: time.Duration(math.MaxInt64 / 2), Cap: time.Second}, 3, math.MaxInt64},
		{Policy{Kind: FullJitter, Base: 100 * ms, Cap: 2 * time.Second}, 0, 0},
	} {
		if got := tt.p.Longest(tt.n); got != tt.want {
			t.Errorf("%v base %v cap %v: Longest(%d) = %v; want %v", tt.p.Kind, tt.p.Base, tt.p.Cap, tt.n, got, tt.want)
		}
	}
}
