package decl

// BackoffKindsDoc lists backoff.Kind's policies by name, with the formula of gRPC's and of
// each job queue's schedule: the one list the settings' docs print.
const BackoffKindsDoc = "none, constant, exponential, full-jitter, equal-jitter, decorrelated, " +
	"grpc (min(cap, base x 2^n) x random(0.8, 1.2) for retry n from 0, gRPC's A6 since 2024), " +
	"or a job queue's schedule: sidekiq (c^4 + 15 + rand(10 x (c + 1)) s for retry c from 0, Sidekiq 8), " +
	"river (n^4 s x random(0.9, 1.1) after the n-th error), " +
	"oban (t + trunc(0.1 x random(0, 1) x t) s, t = 15 + 2^a, after the failure of attempt a from 1, Oban 2.23's worker backoff for up to 20 attempts) " +
	"or temporal (min(100, 2^n) s for retry n from 0, no jitter, the activity retry policy Temporal applies when none is set)"
