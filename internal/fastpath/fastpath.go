// Package fastpath hands the engines a strategy.Retry's fast path, its
// resume from a step, which is no API: package strategy sets it in its init
// (it imports this package, so this one cannot import it).
package fastpath

// retryResume is strategy's, once its init has run.
var retryResume func(r any) any

// Set stores f: package strategy calls it once, in its init.
func Set(f func(r any) any) { retryResume = f }

// RetryResume is the fast path of r, a strategy.Retry or *strategy.Retry,
// as a func(c strategy.Calls, from int) bool: it drives a delivery whose
// steps before from were each called once and succeeded.
func RetryResume(r any) any { return retryResume(r) }
