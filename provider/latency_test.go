package provider

import (
	"testing"
	"time"
)

// A lognormal latency sits at its median for z = 0 and at its p99 for the
// normal's 99th percentile, and a far tail saturates instead of wrapping to a
// negative duration.
func TestLatencyAt(t *testing.T) {
	l := Latency{Median: 20 * time.Millisecond, P99: 200 * time.Millisecond}
	s := l.Sampler()
	if got := s.At(0); got != l.Median {
		t.Errorf("At(0) = %v, want the median %v", got, l.Median)
	}
	if got := s.At(z99); got < l.P99-time.Microsecond || got > l.P99+time.Microsecond {
		t.Errorf("At(z99) = %v, want the p99 %v", got, l.P99)
	}
	if got := (Latency{Median: 20 * time.Millisecond}).Sampler().At(3); got != 20*time.Millisecond {
		t.Errorf("a fixed latency's At(3) = %v, want 20ms", got)
	}
	wide := Latency{Median: time.Second, P99: 1000 * time.Hour}.Sampler()
	if got := wide.At(12); got < 290*365*24*time.Hour {
		t.Errorf("a far tail's At(12) = %v, want about 292 years", got)
	}
}
