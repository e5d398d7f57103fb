package limits

// Limits on a fleet run, checked before any work.
const (
	// FleetDuration is the longest run in seconds; the series holds a row a second.
	FleetDuration = 3600
	// FleetRate bounds every rate (requests a second, or the rate limit).
	FleetRate = 1e6
	// FleetArrivals bounds duration x peak rate, the requests a replicate can expect.
	FleetArrivals = 1e8
	// FleetAttempts bounds the tries of a request.
	FleetAttempts = 100
	// FleetClients bounds the client count.
	FleetClients = 1_000_000
	// FleetWorkers bounds the queue server's workers and FleetQueue its queue.
	FleetWorkers = 1_000_000
	FleetQueue   = 10_000_000
	// FleetSeconds bounds every time parameter (latency, timeout, delay), in seconds.
	FleetSeconds = 86400
	// FleetReplicates bounds the replicates of a run.
	FleetReplicates = 1000
	// FleetSeriesSeconds bounds replicates x duration of the series kept until averaged (88
	// bytes a second: 32 MB a run).
	FleetSeriesSeconds = 360_000
	// FleetHedges bounds the hedges of an attempt (a 16-bit set of copies).
	FleetHedges = 15
	// FleetOrbit bounds fleetdata.Memoryless's Orbit.
	FleetOrbit = 1_000_000
)

// Limits on what a command's fleet runs may cost, checked before any work.
const (
	// FleetEvents bounds the events of every run and replicate together: about 40 CPU minutes.
	FleetEvents = 1e10
	// FleetBytes bounds the memory the runs hold at once: the running replicates and every
	// replicate's series.
	FleetBytes = 4 << 30
)

// Limits on a fleet policy's parameters.
const (
	// PolicyTokens bounds every token count and cost.
	PolicyTokens = 1e6
	// PolicyBudgetRatio bounds Finagle's percentCanRetry (its own bound).
	PolicyBudgetRatio = 1000
	// PolicyMinTTL and PolicyMaxTTL bound Finagle's ttl, in seconds (its own bounds).
	PolicyMinTTL, PolicyMaxTTL = 1, 60
	// PolicyWindow bounds the sliding breaker's counts (window, minimum and half-open calls).
	PolicyWindow = 1_000_000
	// PolicyK bounds the SRE throttle's K.
	PolicyK = 1000
)

// Limits on a fleet graph, checked by Graph.Check before any work.
const (
	// GraphServices bounds a graph's services.
	GraphServices = 64
	// GraphCalls bounds a graph's calls (edges between services) in all.
	GraphCalls = 256
	// GraphFanout bounds the calls of one service.
	GraphFanout = 16
	// GraphDepth bounds the longest chain of services a request can go through.
	GraphDepth = 8
	// GraphEntries bounds the entries (arrival processes) of a graph.
	GraphEntries = 16
)

// DeliveryDeliveries and DeliveryCrashes bound delivery's MaxDeliveries and MaxCrashes.
const (
	DeliveryDeliveries = 1000
	DeliveryCrashes    = 1000
)
