package fleet

import (
	"fmt"
	"strings"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/enum"
	"github.com/retrysim/retrysim/internal/limits"
)

// noCrash is why a run of e never reads a crash's point and bound.
func noCrash(e Entry) string {
	if e.Crash.P == 0 {
		return "no worker crashes: the crash probability is 0"
	}
	return ""
}

// switchParam is an entry's setting that is true or false, false by default.
func switchParam(key, bounds, doc string, field func(e *Entry) *bool) decl.EntryParam[Entry] {
	return decl.EntryParam[Entry]{Key: key, Type: "true or false", Default: "false", Bounds: bounds, Example: "true", Doc: doc,
		Field: func(e *Entry) any { return field(e) }}
}

// entryParams declares every setting of an Entry but its service, load and
// client once (decl.EntryParams).
var entryParams = []decl.EntryParam[Entry]{
	{Key: "poison", Type: "a probability", Default: "0", Bounds: "0 to 1", Example: "0.01",
		Doc:   "the share of the entry's requests that are poison: each fails its own work at the service it enters on every attempt (a job queue's poison jobs, retrysim workers)",
		Field: func(e *Entry) any { return &e.Poison }},
	switchParam("redeliver_at_timeout", "true or false",
		"retry a failed attempt when its timeout would have passed instead of after the client's backoff: an SQS message reappears when its visibility timeout runs out (retrysim workers)",
		func(e *Entry) *bool { return &e.RedeliverAtTimeout }),
	switchParam("heartbeat", "true or false",
		"while a queue server's worker holds an attempt, put its timeout off by another timeout each time it falls due: a worker's heartbeat extending a job's lease (retrysim workers)",
		func(e *Entry) *bool { return &e.Heartbeat }),
	switchParam("timeout_at_receive", "true or false (true needs a queue server and no hedges)",
		"start an attempt's timeout when a worker of the queue server it enters takes it, not when it is sent: SQS's visibility timeout runs from a receive, so a message waiting in the queue never reappears (retrysim workers)",
		func(e *Entry) *bool { return &e.TimeoutAtReceive }),
	{Key: "store", Type: "a store", Default: "none", Names: enum.Names[delivery.Store](), Bounds: strings.Join(enum.Names[delivery.Store](), ", "), Example: "lease",
		Doc:   "the key store the workers of the service the entry sends to keep for each request's calls (a job's steps), shared by all its attempts (its deliveries): the delivery model's queue.store, operation for operation (retrysim workers)",
		Field: func(e *Entry) any { return nameField(&e.Store.Mode, enum.Parse[delivery.Store], delivery.Store.String) },
		Sets: func(e *Entry) {
			def := delivery.Defaults()
			e.Store.TTL, e.Store.Lease = def.TTL, def.Lease
		}},
	{Key: "ttl", Type: "duration", Default: "24h", Bounds: fmt.Sprintf("0s (never) to %ds", limits.FleetSeconds), Example: "1h", Needs: "store",
		Doc:   "the store's keys expire this long after they are written, as the delivery model's queue.ttl (a lease's done keys never do)",
		Field: func(e *Entry) any { return &e.Store.TTL },
		Unread: func(e Entry) string {
			if e.Store.Mode == delivery.NoStore {
				return "no key is written: the store is none"
			}
			return ""
		}},
	{Key: "lease", Type: "duration", Default: "30s", Bounds: fmt.Sprintf("above 0s, up to %ds", limits.FleetSeconds), Example: "45s", Needs: "store",
		Doc:   "store lease: a lease holds this long before another delivery may take it over, as the delivery model's queue.lease",
		Field: func(e *Entry) any { return &e.Store.Lease },
		Unread: func(e Entry) string {
			if e.Store.Mode != delivery.Lease {
				return fmt.Sprintf("only the lease store takes a lease; the store is %s", e.Store.Mode)
			}
			return ""
		}},
	{Key: "crash", Type: "a probability", Default: "0", Bounds: "0 to 1", Example: "0.001",
		Doc:   "the probability that a worker of the service the entry sends to dies at crash_at, each time a delivery passes it, as the delivery model's queue.crash; its delivery comes back when its timeout (the visibility timeout) runs out",
		Field: func(e *Entry) any { return &e.Crash.P }},
	{Key: "crash_at", Type: "a crash point", Default: "before-key", Names: enum.Names[delivery.CrashPoint](), Bounds: strings.Join(enum.Names[delivery.CrashPoint](), ", "), Example: "after-work", Needs: "crash",
		Doc: "where workers die: before a step's key, between the key and the step's call, between the call's success and the key's record, or after the last step before the ack",
		Field: func(e *Entry) any {
			return nameField(&e.Crash.At, enum.Parse[delivery.CrashPoint], delivery.CrashPoint.String)
		},
		Unread: noCrash},
	{Key: "max_crashes", Type: "a whole number", Default: "0 (no bound)", Bounds: fmt.Sprintf("0 to %d", limits.DeliveryCrashes), Example: "1", Needs: "crash",
		Doc:    "the most crashes a job's workers may have, as the delivery model's queue.max_crashes",
		Field:  func(e *Entry) any { return &e.Crash.Max },
		Unread: noCrash},
}

// graphParams declares every setting of a Graph but its entries and
// services once (decl.GraphParams).
var graphParams = []decl.GraphParam[Graph]{
	{Key: "name", Type: "text", Default: "graph", Bounds: "a name", Example: "checkout",
		Doc:   "the graph's name, in every output's title",
		Field: func(g *Graph) any { return &g.Name }},
	{Key: "duration", Type: "duration", Default: "1m", Bounds: fmt.Sprintf("1s to %ds", limits.FleetDuration), Example: "30s",
		Doc:   "how long requests arrive, as the fleet model's duration",
		Field: func(g *Graph) any { return &g.Duration }},
	{Key: "net", Type: "duration", Default: "100ms", Bounds: fmt.Sprintf("up to %ds", limits.FleetSeconds), Example: "1ms",
		Doc:   "the mean one-way network delay of every call, exponential (0: none), as the fleet model's net",
		Field: func(g *Graph) any { return &g.Net }},
	{Key: "deadlines", Type: "true or false", Default: "false", Bounds: "true or false", Example: "true",
		Doc:   "propagate deadlines, as gRPC does: an attempt's timeout is at most what is left of its caller's, and a service whose caller has given up makes no more calls",
		Field: func(g *Graph) any { return &g.Deadlines }},
}
