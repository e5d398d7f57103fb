package fleet

// When each policy is asked. A client decides to retry when an attempt
// fails, then waits out its backoff, then sends the retry; a library asks
// its guard at one of the two moments, and with a backoff the state it
// answers from differs (a breaker may open during the wait). The engine asks
// each kind when the system it is named after does:
//
//	kind             asked                      source
//	token-bucket     when the retry is decided  Brooker's simulations (no backoff: the two coincide)
//	aws              when the retry is decided  aws-sdk-go-v2 aws/retry/middleware.go handleAttempt: GetRetryToken, RetryDelay, then the sleep
//	grpc             when the retry is decided  grpc-go v1.83.1 stream.go csAttempt.shouldRetry: retryThrottler.throttle(), then the backoff timer
//	breaker          when the retry is decided  Brooker's simulations (no backoff: the two coincide)
//	attempt-breaker  when the retry is decided  as breaker
//	aws-spec         when the retry is decided  as aws
//	finagle-budget   when the retry is decided  Finagle 24.5.0 RetryFilter: retryBudget.tryWithdraw(), then schedule(howlong)
//	envoy-budget     when the retry is decided  Envoy v1.39.0 router/retry_state_impl.cc RetryStateImpl::shouldRetry: retries().canCreate(), then enableBackoffTimer()
//	sliding-breaker  when the attempt is sent   resilience4j 2.4.0 and Polly 8.7.0: the retry wraps the breaker, which is asked on every attempt
//	sre-throttle     when the attempt is sent   the SRE book: the client throttles each request as it is about to send it
//	grpc-adaptive    when the attempt is sent   grpc-go v1.83.1 balancer/rls: ShouldThrottle() as each lookup is about to be sent
//
// A refusal ends the request, except for sliding-breaker: resilience4j's
// CallNotPermittedException and Polly's BrokenCircuitException are
// exceptions their retry handles by default, so a refused attempt uses up an
// attempt and the next goes after the backoff.

// askedAtSend says whether the kind is asked for a retry when the retry is
// sent, after its backoff, rather than when it is decided.
func (k PolicyKind) askedAtSend() bool {
	return k == SlidingBreaker || k == SREThrottle || k == GRPCAdaptive
}

// refusalRetried says whether an attempt the kind refuses is a failed
// attempt the client retries after its backoff, rather than the request's
// end.
func (k PolicyKind) refusalRetried() bool { return k == SlidingBreaker }
