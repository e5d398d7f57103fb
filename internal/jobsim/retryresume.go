package jobsim

// retryResume is package strategy's, once its init has run.
var retryResume func(r any) any

// SetRetryResume stores f: package strategy, which imports this package and so
// cannot be imported by it, calls it once, in its init.
func SetRetryResume(f func(r any) any) { retryResume = f }

// RetryResume is the fast path of r, a strategy.Retry or *strategy.Retry,
// as a func(c strategy.Calls, from int) bool: it drives a delivery whose
// steps before from were each called once and succeeded.
func RetryResume(r any) any { return retryResume(r) }
