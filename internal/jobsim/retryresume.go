package jobsim

// retryResume is package strategy's, once its init has run.
var retryResume func(r any) any

// SetRetryResume stores f: package strategy calls it in its init.
func SetRetryResume(f func(r any) any) { retryResume = f }

// RetryResume is the fast path of a strategy.Retry, as a func(c strategy.Calls, from int) bool
// resuming at step from.
func RetryResume(r any) any { return retryResume(r) }
