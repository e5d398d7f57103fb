package fleet

import "fmt"

// Limit is a bound the model checks before any work, as the fleet
// command's help states it, in its words: what it bounds (a flag, or a
// group of flags) and the bound, built from the constants Check enforces so
// help cannot drift from them.
type Limit struct{ What, Bound string }

// Limits are the model's limits, in the order the command's help lists
// them.
func Limits() []Limit {
	return []Limit{
		{"-duration", fmt.Sprintf("1 s to %d s (the series holds a row a run a second)", MaxDuration)},
		{"rates", fmt.Sprintf("up to %v a second; duration x peak rate up to %v requests", MaxRate, MaxArrivals)},
		{"-replicates", fmt.Sprintf("1 to %d; replicates x duration up to %d s (each replicate's series is kept until they are averaged)", MaxReplicates, MaxSeriesSeconds)},
		{"-clients", fmt.Sprintf("1 to %d; -attempts 1 to %d", MaxClients, MaxAttempts)},
		{"-capacity", fmt.Sprintf("up to %d workers; -queue up to %d waiting calls", MaxWorkers, MaxQueue)},
		{"times", fmt.Sprintf("(-base, -slope, -service, -net, -timeout, ...) up to %d s", MaxSeconds)},
		{"policies", fmt.Sprintf("token counts and costs (-bucket-*, -quota*, -grpc-*) up to %v; -breaker-threshold 0 to 1; "+
			"-budget-ratio 0 to %v (finagle) or 1 (envoy); -budget-ttl %v s to %v s; -cb-window, -cb-min-calls, -cb-half-open 1 to %v; "+
			"-sre-k above 0 to %v; -hedges 0 to %v", MaxTokens, MaxBudgetRatio, MinTTL, MaxTTL, MaxWindow, MaxK, MaxHedges)},
		{"events", fmt.Sprintf("up to %.0e over every run and replicate, about 40 CPU minutes: a request makes "+
			"up to -attempts x (1 + -hedges) calls of up to 5 events each", float64(MaxEvents))},
		{"memory", fmt.Sprintf("up to %d GiB at once: each replicate running (up to -workers at once, fewer when they would not fit) holds its requests in flight "+
			"(the rate x how long one can live: -timeout x -attempts, hedge delays, backoffs, its time in the server), "+
			"its policy windows (-budget-ttl, -cb-window*, -sre-window, a state per client) and its series, kept for "+
			"every replicate until they are averaged", MaxBytes>>30)},
	}
}
