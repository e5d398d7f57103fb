package fleetdata

// Memoryless makes a run Markovian, so that retrysim chain solves it exactly while the
// usual engine runs it: with On, fleet's Config.Check takes only the QueueServer with
// ExponentialService and no network delay, hedges, keys, outage or retry policy. Its rules:
//
//   - Requests arrive as a Poisson process of rate Load.At(t).
//   - c = Server.Workers workers and a FIFO queue of at most K = Server.QueueMax calls; a
//     call takes an exponential service time of mean Server.Service.Median, and one that
//     finds every worker busy and K queued is rejected at once.
//   - Each attempt's timeout is exponential of rate TimeoutRate (θ); a call whose attempt
//     timed out stays and is served in its turn (abandoned, not removed).
//   - A served call fails with probability Server.PFail, else its request is done.
//   - A timed-out or failed attempt is retried with probability RetryProb (p) if fewer
//     than Orbit requests wait out a backoff, after an exponential backoff of rate
//     BackoffRate (ν); else its request fails.
//   - Client.Attempts still caps the tries, which the chain leaves out: a run compared
//     with it sets limits.FleetAttempts, reached with probability at most
//     p^(limits.FleetAttempts-1).
//
// The chain's state is the workers' calls (live or abandoned), the queue's in order, and
// the orbit's size.
type Memoryless struct {
	On bool
	// TimeoutRate is θ, a second; BackoffRate is ν, a second.
	TimeoutRate, BackoffRate float64
	// RetryProb is p, the probability a failed attempt is retried.
	RetryProb float64
	// Orbit caps the requests waiting out a backoff at once.
	Orbit int
}
