package fleet

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/pathtext"
	"github.com/retrysim/retrysim/schema"
)

// jobOverhead is a worker's own time over a job besides its steps: the
// least a queue server's service time may be (Check wants it above 0), so
// small that a job's time is its steps'.
const jobOverhead = time.Microsecond

// NoVisibility is the Timeout of a queue whose jobs never reappear while a
// worker holds them (Sidekiq, River, Oban: a retry is scheduled when a try
// fails, not when a lease runs out): a day, past any run.
const NoVisibility = limits.FleetSeconds * time.Second

// Workers is a worker fleet: jobs arriving on a job queue, taken by
// WorkerCount workers, each job a list of steps, each step a call to a named
// dependency that every worker shares. It is not a model of its own but a
// service graph (Graph), run by RunGraph on the one engine:
//
//   - the queue is the graph's entry, and its Client (Queue) is the queue's
//     redelivery of a job: Attempts the queue's tries (a queue's max attempts,
//     SQS's maxReceiveCount), Backoff its retry schedule
//     (backoff.Sidekiq, River, Oban, Temporal, or a constant delay),
//     Timeout its visibility timeout (for SQS a message reappears while its
//     first delivery still runs: a timeout, then a retry while the first
//     copy is still in a worker; NoVisibility for the queues without one),
//     Keys the job's idempotency key (SameKey: a second delivery arriving
//     while the first runs is refused as a conflict, and one after the
//     first succeeded gets its stored result);
//   - the workers are the entry's service: a queue server of WorkerCount
//     workers and QueueMax waiting jobs whose own work is 1 µs, with
//     Down as its outage (Stall: the workers are down and jobs wait; Fail:
//     every job taken in the window fails), and whose calls, in order, are
//     the job's Steps, each a call to a dependency with the step's client
//     policy (timeout, attempts, backoff, keys, budgets or breakers,
//     hedges);
//   - the dependencies are the graph's other services (any server kind,
//     outage windows, calls of their own).
//
// A job that fails all its queue tries is dead-lettered: the entry's
// Failed. Its completion time is the entry's latency; the backlog is the
// workers' service's (WorkersSummary's peak_backlog, peak_age_seconds and
// drain_seconds); duplicate side effects of a step across deliveries are
// WorkersSummary's duplicates.
//
// The visibility timeout runs from the job's enqueue (the attempt's send),
// or, with TimeoutAtReceive, from a worker's receive, as SQS's does (a job
// waiting in the queue then never reappears). With Heartbeat, a worker
// holding a job extends its lease until it is done. With a Store, the
// workers keep the delivery model's key store for the job's steps, shared
// by its deliveries; with Crash, they die at its crash points (KeyStore,
// Crashes).
//
// Memory follows the jobs queued and in flight, not those done (a job's
// slot is reused once it has ended): a job waiting for a worker costs 104
// bytes (its request slot and books 64 in a graph of up to 64 edges, its place in the queue 24, its
// visibility timeout's event 16; up to twice the last two while their
// rings grow), a job on a worker as much plus its steps' requests; a Store
// or Crash adds 24 bytes a step and 4 more to every request slot, a job's
// and its steps' calls' alike.
type Workers struct {
	// Name labels the run in outputs.
	Name string
	// Duration is how long jobs arrive; Net the mean one-way network delay
	// of every call, the queue's included.
	Duration, Net time.Duration
	// Load is the jobs' arrivals.
	Load Shape
	// Queue is the queue's redelivery of a job (see Workers).
	Queue Client
	// EntrySettings are the queue's settings as its entry's: Poison the
	// share of poison jobs, which fail in the worker on every try before
	// any step; RedeliverAtTimeout makes a failed try reappear when its
	// visibility timeout runs out, as SQS's messages do, instead of after
	// Queue.Backoff; Heartbeat makes a worker extend a job's visibility
	// timeout while it holds the job; TimeoutAtReceive starts a try's
	// visibility timeout when a worker takes the job, as SQS's does,
	// instead of at its enqueue; Store is the key store the workers keep
	// for a job's steps, shared by every delivery of the job, and Crash
	// their crashes.
	EntrySettings
	// WorkerCount is the workers; QueueMax the most jobs waiting for one
	// (a job arriving to a full queue is refused, a try used up).
	WorkerCount, QueueMax int
	// Down is the workers' outage.
	Down Outage
	// Steps are the job's steps, in order: at least one, at most 16.
	Steps []WorkerStep
	// Dependencies are the services the steps call.
	Dependencies []Node
}

// WorkerStep is a job's step: a call to dependency To with a client policy.
type WorkerStep struct {
	To     string
	Client Client
}

// Graph is w as the service graph that runs it (see Workers): the workers'
// service ("workers") first, then the dependencies.
func (w Workers) Graph() Graph {
	calls := make([]Call, len(w.Steps))
	for i, st := range w.Steps {
		calls[i] = Call(st)
	}
	workers := Node{Name: fleetdata.WorkersService, Outage: w.Down, Calls: calls,
		Server: Server{Kind: QueueServer, Workers: w.WorkerCount, QueueMax: w.QueueMax,
			Service: Service{Dist: LognormalService, Median: jobOverhead}}}
	return Graph{Name: w.Name, Duration: w.Duration, Net: w.Net,
		Services: append([]Node{workers}, w.Dependencies...),
		Entries:  []Entry{{To: fleetdata.WorkersService, Load: w.Load, Client: w.Queue, EntrySettings: w.EntrySettings}}}
}

// Check refuses a fleet the engine cannot run, before any work, with a
// *schema.FieldError naming the setting as Workers spells it: name, duration,
// net, load.*, queue.* (the queue's client), poison, store, ttl, lease, crash, crash_at, max_crashes, worker_count,
// queue_max, down.*, steps (none, or more than 16), steps[i].to and
// steps[i].client.*, dependencies[NAME].* and dependencies[i].name (a
// dependency named as the workers' service); and whatever Graph.Check
// refuses of the graph, its path so translated.
func (w Workers) Check() error {
	switch {
	case len(w.Steps) == 0:
		return pathtext.Errorf("steps", "a job needs at least one step")
	case len(w.Steps) > limits.GraphFanout:
		return pathtext.Errorf("steps", "%d steps; at most %d", len(w.Steps), limits.GraphFanout)
	}
	for i, d := range w.Dependencies {
		if d.Name == fleetdata.WorkersService {
			return pathtext.Errorf(fmt.Sprintf("dependencies[%d].name", i), "%q is the workers' own service's name", d.Name)
		}
	}
	g := w.Graph()
	err := g.Check()
	var fe *schema.FieldError
	if err == nil || !errors.As(err, &fe) {
		return err
	}
	out := *fe // the message and the settings it names kept
	out.Field = w.path(fe.Field)
	return &out
}

// path is the Workers path of a setting of its graph.
func (w Workers) path(p string) string {
	type rename struct{ from, to string }
	renames := []rename{{"entries[0].client.", "queue."}, {"entries[0].load.", "load."}}
	for _, e := range decl.EntryParams[Entry]() { // named as the entry's
		renames = append(renames, rename{"entries[0]." + e.Key, e.Key})
	}
	ws := "services[" + fleetdata.WorkersService + "]"
	renames = append(renames, rename{ws + ".server.workers", "worker_count"}, rename{ws + ".server.queue_max", "queue_max"},
		rename{ws + ".outage.", "down."}, rename{ws + ".calls[", "steps["}, rename{"services[", "dependencies["})
	for _, r := range renames {
		if strings.HasPrefix(p, r.from) {
			return r.to + strings.TrimPrefix(p, r.from)
		}
	}
	return p
}
