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

// jobOverhead is a worker's own time over a job besides its steps: above 0,
// as Check wants, and negligible.
const jobOverhead = time.Microsecond

// NoVisibility is the Timeout of a queue whose jobs never reappear while a
// worker holds them (Sidekiq, River, Oban): a day, past any run.
const NoVisibility = limits.FleetSeconds * time.Second

// Workers is a worker fleet: jobs arriving on a job queue, taken by
// WorkerCount workers, each job a list of steps, each a call to a shared
// dependency. RunGraph runs its graph (Workers.Graph); Queue is the queue's
// redelivery (Timeout its visibility timeout) (docs/workers.md).
type Workers struct {
	Name                  string        // labels the run in outputs
	Duration, Net         time.Duration // as Config's Duration and Net
	Load                  Shape
	Queue                 Client
	EntrySettings                      // the queue's
	WorkerCount, QueueMax int          // workers; most jobs waiting for one
	Down                  Outage       // the workers' outage
	Steps                 []WorkerStep // in order: 1 to 16
	Dependencies          []Node       // the services the steps call
}

// WorkerStep is a job's step: a call to dependency To with a client policy.
type WorkerStep struct {
	To     string
	Client Client
}

// Graph is w as the service graph that runs it: the queue its entry, the
// workers' service first, then the dependencies.
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

// Check refuses a fleet the engine cannot run with a *schema.FieldError
// naming the setting as Workers spells it (steps[0].client.timeout).
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
