package fleetdata

// Memoryless makes a run Markovian, so that its law is a continuous-time
// Markov chain (retrysim chain builds it and solves it exactly) while
// the engine that runs it is the one every other run uses. With On, a run
// must use the QueueServer with ExponentialService and no network delay,
// hedges, keys, outage or retry policy (Unlimited); fleet's Config.Check
// refuses anything else. Only the chain command's runs set it, through
// fleetrun.Memoryless. Its rules, from which the chain and the engine's handling
// both follow:
//
//   - Requests arrive as a Poisson process of rate Load.At(t); a spike makes
//     the rate piecewise constant.
//   - The server has c = Server.Workers workers and a FIFO queue of at most
//     K = Server.QueueMax calls; each call takes an exponential service time
//     of mean Server.Service.Median on its worker. A call that finds every
//     worker busy and K calls queued is rejected at once: an error reply.
//   - Each attempt's timeout is exponential of rate TimeoutRate (θ), drawn
//     when it is sent (the attempt's only copy: Hedges is 0). A call whose attempt timed out stays where it is, in
//     the queue or on its worker, and is served in its turn: wasted work, a
//     late reply nobody reads (abandoned, not removed).
//   - A served call fails with probability Server.PFail (an error reply),
//     else it succeeds and its request is done.
//   - An attempt that timed out or got an error reply is retried with
//     probability RetryProb (p), if fewer than Orbit requests are waiting out
//     a backoff; else its request fails. A retried request waits an
//     exponential backoff of rate BackoffRate (ν), in the orbit, and then
//     sends its next attempt.
//   - Client.Attempts still caps the tries; the chain leaves the cap out,
//     so a run compared with it sets limits.FleetAttempts, which a request reaches
//     with probability at most p^(limits.FleetAttempts-1).
//
// The chain's state is then the workers' calls (live or abandoned), the
// queue's calls in order (each live or abandoned), and the orbit's size: the
// order matters because an abandoned call ahead of a live one delays it.
type Memoryless struct {
	On bool
	// TimeoutRate is θ, a second; BackoffRate is ν, a second.
	TimeoutRate, BackoffRate float64
	// RetryProb is p, the probability a failed attempt is retried.
	RetryProb float64
	// Orbit caps the requests waiting out a backoff at once.
	Orbit int
}
