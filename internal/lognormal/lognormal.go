// Package lognormal says how a provider.Latency is drawn: the one rule that
// its String, the engines' samplers, the delivery model's warnings and the
// flags and scenario references read.
package lognormal

import "time"

// Drawn reports whether a latency of median and p99 takes a random draw:
// it is lognormal when p99 is above a median above 0, and fixed (the median)
// otherwise.
func Drawn(median, p99 time.Duration) bool { return p99 > median && median > 0 }
