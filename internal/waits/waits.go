// Package waits computes a backoff.Schedule's waits as pure functions of the attempt, the
// previous wait and a uniform draw passed in.
package waits

import (
	"math"
	"time"

	"github.com/retrysim/retrysim/backoff"
)

// capOf is the wait p's cap allows: Cap, or no bound when Cap is 0.
func capOf(p backoff.Schedule) float64 {
	if p.Cap == 0 {
		return math.Inf(1)
	}
	return float64(p.Cap)
}

// Jittered reports whether Delay uses its draw.
func Jittered(p backoff.Schedule) bool {
	switch p.Kind {
	case backoff.FullJitter, backoff.EqualJitter, backoff.Decorrelated, backoff.GRPC, backoff.Sidekiq, backoff.River, backoff.Oban:
		return true
	}
	return false
}

// Longest is the longest the first n retries can wait in all, each draw at its top.
func Longest(p backoff.Schedule, n int) time.Duration {
	var sum, prev time.Duration
	for a := range n {
		prev = Delay(p, a, prev, 1)
		if sum > math.MaxInt64-prev {
			return math.MaxInt64 // saturate rather than wrap
		}
		sum += prev
	}
	return sum
}

// Delay is the wait before retry number attempt (0 for the first retry).
// prev is the previous wait (Decorrelated builds on it; pass 0 before the
// first retry) and u a uniform draw in [0, 1), used only by the jittered
// policies:
//
//	exponential   min(cap, base * 2^attempt)
//	full jitter   u * min(cap, base * 2^attempt)
//	equal jitter  t/2 + u * t/2, t = min(cap, base * 2^attempt)
//	decorrelated  min(cap, base + u * (3*prev - base)), prev starting at base
//	grpc          min(cap, base * 2^attempt) * (0.8 + 0.4u)
//	sidekiq       a^4 + 15 + floor(10 * (a + 1) * u) seconds, a = attempt
//	river         n^4 * (0.9 + 0.2u) seconds, n = attempt + 1
//	oban          t + floor(0.1u * t) seconds, t = 15 + 2^min(attempt + 1, 100)
//	temporal      min(100, 2^attempt) seconds
//
// A Cap of 0 is no cap; a wait past the largest Duration saturates; an unknown kind waits
// nothing.
func Delay(p backoff.Schedule, attempt int, prev time.Duration, u float64) time.Duration {
	expo := func() float64 {
		return math.Min(capOf(p), math.Ldexp(float64(p.Base), attempt))
	}
	var d float64
	switch p.Kind {
	case backoff.None:
		return 0
	case backoff.Constant:
		d = float64(p.Base)
	case backoff.Exponential:
		d = expo()
	case backoff.FullJitter:
		d = u * expo()
	case backoff.EqualJitter:
		t := expo()
		d = t/2 + u*t/2
	case backoff.Decorrelated:
		if prev <= 0 {
			prev = p.Base
		}
		d = math.Min(capOf(p), float64(p.Base)+u*(3*float64(prev)-float64(p.Base)))
	case backoff.GRPC:
		d = expo() * (0.8 + 0.4*u)
	case backoff.Sidekiq:
		a := float64(attempt)
		n := 10 * (a + 1) // rand(n) is floor(n u), at most n - 1
		d = (a*a*a*a + 15 + math.Min(n-1, math.Floor(n*u))) * float64(time.Second)
	case backoff.River:
		n := float64(attempt + 1)
		d = n * n * n * n * (0.9 + 0.2*u) * float64(time.Second)
	case backoff.Oban:
		// Oban's attempt is attempt + 1, its power clamped at max_pow 100, jittered in its order
		t := 15 + math.Ldexp(1, min(attempt+1, 100))
		d = (t + math.Trunc(u*0.1*t)) * float64(time.Second)
	case backoff.Temporal:
		d = math.Min(100, math.Ldexp(1, attempt)) * float64(time.Second)
	}
	if d >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(d)
}
