package fleet

import (
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/internal/jobqueue"
	"github.com/retrysim/retrysim/internal/limits"
)

// The engine's tests run on a few of the presets' runs, which
// internal/fleetpreset builds; it imports fleet, so these tests cannot
// import it, and these are those runs as the presets build them.

// collapseRuns are the brooker-collapse preset's four runs of duration d:
// a ramp and a spike, without backoff and with full jitter.
func collapseRuns(d time.Duration) []Config {
	base := Config{
		Duration: d,
		Server:   Server{Kind: LatencyServer, Base: time.Second, Slope: 10 * time.Millisecond},
		Client:   Client{Clients: 1, Timeout: 3 * time.Second, Attempts: 3},
		Net:      100 * time.Millisecond,
	}
	ramp := Shape{Kind: RampLoad, Rate: 40, Peak: 80, From: 0, To: 50 * time.Second}
	spike := Shape{Kind: SpikeLoad, Rate: 40, Peak: 80, From: 20 * time.Second, To: 25 * time.Second}
	jitter := backoff.Schedule{Kind: backoff.FullJitter, Base: 20 * time.Second}
	var runs []Config
	for _, load := range []struct {
		name  string
		shape Shape
	}{{"ramp", ramp}, {"spike", spike}} {
		for _, b := range []struct {
			name   string
			policy backoff.Schedule
		}{{"no_backoff", backoff.Schedule{}}, {"backoff_and_jitter", jitter}} {
			c := base
			c.Name = load.name + "_" + b.name
			c.Load = load.shape
			c.Client.Backoff = b.policy
			runs = append(runs, c)
		}
	}
	return runs
}

// sqsMaxReceive is the sqs-visibility preset's maxReceiveCount.
const sqsMaxReceive = 5

// queueClient is a job queue's redelivery with the queue's defaults d and
// tries tries in all: its schedule, and its visibility timeout if it has
// one (NoVisibility otherwise).
func queueClient(d jobqueue.Defaults, tries int) Client {
	c := DefaultConfig().Client
	c.Attempts, c.Backoff, c.Timeout = tries, d.Schedule, NoVisibility
	if d.Visibility > 0 {
		c.Timeout = d.Visibility
	}
	return c
}

// stepClient is a job's step's client in the presets: one try, no backoff,
// a timeout of 10 s (the job's retry is the queue's).
func stepClient() Client {
	c := DefaultConfig().Client
	c.Attempts, c.Timeout = 1, 10*time.Second
	return c
}

// dbSteps is a job of three steps, each a call to the database db.
func dbSteps() []WorkerStep {
	return []WorkerStep{{To: "db", Client: stepClient()}, {To: "db", Client: stepClient()}, {To: "db", Client: stepClient()}}
}

// outageFleet is the presets' fleet of a database outage: 10 jobs a second
// of three steps on 20 workers (1 ms of network each way), every step a
// call to a database taking 5 ms that fails every call from 10 to 40
// minutes into the run (cut to the run's duration when shorter), the queue
// redelivering a failed job with client q.
func outageFleet(name string, d time.Duration, q Client) Workers {
	from, to := min(10*time.Minute, d/6), min(40*time.Minute, d*2/3)
	return Workers{Name: name, Duration: d, Net: time.Millisecond, Load: Shape{Kind: ConstantLoad, Rate: 10},
		Queue: q, WorkerCount: 20, QueueMax: limits.FleetQueue, Steps: dbSteps(),
		Dependencies: []Node{{Name: "db", Server: steadyServer(5*time.Millisecond, 0), Outage: Outage{From: from, To: to, Mode: Fail}}}}
}

// steadyServer is a server that takes base whatever its load, failing
// each call with probability pFail.
func steadyServer(base time.Duration, pFail float64) Server {
	s := DefaultConfig().Server
	s.Kind, s.Base, s.PFail = IndependentServer, base, pFail
	return s
}
