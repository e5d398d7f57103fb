// Package fleet is the coupled model of retries: many clients share one server,
// so the retries a client sends change the latency and failures every client
// sees. It is a discrete-event simulation in virtual time: Poisson arrivals
// whose rate follows a shape, a server whose answers depend on its load, and
// clients with a timeout, attempts, backoff, an idempotency key mode, hedges,
// and a policy (a retry budget, a breaker or a throttle) that decides in
// virtual time, per client or shared by the fleet. A run may also be a
// service graph (Graph): services that call each other, each call with its
// own client policy, retries at every layer; the one-server model is the
// graph of one edge (Config.Graph), and one engine runs both.
//
// Unlike the Part 5 and delivery models, requests here are not independent, so
// a run is sequential; replicates (independent seeds) are the unit of
// parallelism. Everything is a pure function of the configuration and the
// seed: the same inputs give the same numbers, whatever the number of workers.
//
// The package computes; it does not render. Tables, json and plots of its
// results live in the retrysim command.
package fleet

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/schema"
)

// Config is one run of the model.
type Config struct {
	// Name labels the run in outputs.
	Name string
	// Duration is how long requests arrive. The run then goes on
	// until every request has finished, and those last seconds count in the
	// summary but not in the series.
	Duration time.Duration
	Load     Shape
	Outage   Outage
	Server   Server
	Client   Client
	// Net is the mean one-way network delay, exponentially distributed,
	// drawn for every message each way (0: no delay).
	Net time.Duration

	// memoryless, when On, makes the run Markovian (fleetdata.Memoryless).
	memoryless fleetdata.Memoryless
}

// DefaultConfig is the run `retrysim fleet` makes when no flag says
// otherwise: Brooker's collapse server (latency 1 s + 0.01 s a call in
// progress, network 0.1 s each way) at a constant 40 requests a second for
// 60 s (a spike or ramp, when asked for, goes to 80 a second from t = 20 s
// to 25 s, brooker-collapse's spike window), one client with a 3 s timeout and 3 tries, no backoff, no keys, the
// policy Unlimited; the other kinds' parameters are set (DefaultPolicy, a
// queue of 8 workers and 100 places at 0.1 s lognormal service, a limit of
// 50 a second), so that choosing a kind is enough to run it.
func DefaultConfig() Config {
	return Config{
		Name:     "run",
		Duration: time.Minute,
		Load:     Shape{Kind: ConstantLoad, Rate: 40, Peak: 80, From: 20 * time.Second, To: 25 * time.Second},
		Server: Server{Kind: LatencyServer, Base: time.Second, Slope: 10 * time.Millisecond, Workers: 8, QueueMax: 100,
			Service: Service{Dist: LognormalService, Median: 100 * time.Millisecond, Sigma: 0.5}, Limit: 50, Burst: 50},
		Client: Client{Clients: 1, Timeout: 3 * time.Second, Attempts: 3,
			Backoff: backoff.Schedule{Kind: backoff.None, Base: 100 * time.Millisecond, Cap: 2 * time.Second},
			Policy:  DefaultPolicy(), HedgeDelay: defaultHedgeDelay},
		Net: 100 * time.Millisecond,
	}
}

// defaultHedgeDelay is the hedges' delay when nothing sets one.
const defaultHedgeDelay = 50 * time.Millisecond

// ShapeKind is how the arrival rate changes over a run.
type ShapeKind uint8

// The shapes.
const (
	ConstantLoad ShapeKind = iota // Rate throughout
	RampLoad                      // from Rate at From up to Peak midway and down to Rate at To
	SpikeLoad                     // Peak in [From, To), Rate elsewhere
)

var shapeNames = [...]string{"constant", "ramp", "spike"}

// String is the shape's name, as UnmarshalText reads it.
func (k ShapeKind) String() string { return enumName(shapeNames[:], "ShapeKind", k) }

// MarshalText is the shape's name.
func (k ShapeKind) MarshalText() ([]byte, error) { return enumText(shapeNames[:], "ShapeKind", k) }

// UnmarshalText reads a shape's name.
func (k *ShapeKind) UnmarshalText(text []byte) error { return parseText(k, text, parseShape) }

// parseShape reads a shape name.
func parseShape(s string) (ShapeKind, error) {
	return parseEnum[ShapeKind](shapeNames[:], s, "shape", "one of "+strings.Join(shapeNames[:], ", "))
}

// parseEnum is the value of T whose name in names is s; its error names
// what T is and what it wants.
func parseEnum[T ~uint8](names []string, s, what, want string) (T, error) {
	if i := slices.Index(names, s); i >= 0 {
		return T(i), nil
	}
	return 0, fmt.Errorf("unknown %s %q (want %s)", what, s, want)
}

// Shape is the rate of a Poisson arrival process over time, in requests a
// second:
//
//	constant  Rate
//	spike     Peak in [From, To), Rate elsewhere
//	ramp      Rate at From, rising linearly to Peak (at least Rate, as
//	          Check holds) midway to To, back to Rate at To, and on down at
//	          the same slope (floored at 0) after it, as in Brooker's ramp;
//	          Rate before From
//
// FirstCall adds, whatever the kind, a first request for every client at an
// exponential time of mean Config.Net from 0, as Brooker's retry_sim starts
// its clients (sim_loop schedules each client's gen_load at net_rtt(), and
// gen_load starts a call at once); the Poisson arrivals run from 0 as
// without it, where his start at each client's first call.
type Shape struct {
	Kind      ShapeKind
	Rate      float64
	Peak      float64
	From, To  time.Duration
	FirstCall bool
}

// At is the rate at time t, in seconds.
func (s Shape) At(t float64) float64 { return s.at(t, s.From.Seconds(), s.To.Seconds()) }

// at is At with From and To in seconds, from and to, which the engine's
// arrivals keep rather than convert at every draw.
func (s *Shape) at(t, from, to float64) float64 {
	switch s.Kind {
	case SpikeLoad:
		if t >= from && t < to {
			return s.Peak
		}
	case RampLoad:
		if t >= from {
			mid, half := (from+to)/2, (to-from)/2
			return max(0, s.Peak-(s.Peak-s.Rate)*math.Abs(t-mid)/half) // the builtin gives math.Max's values
		}
	}
	return s.Rate
}

// max is the largest rate the shape takes.
func (s Shape) max() float64 {
	if s.Kind == ConstantLoad {
		return s.Rate
	}
	return math.Max(s.Rate, s.Peak)
}

// settled is when the shape is back at its base rate for good, in seconds:
// the end of a spike or ramp, 0 for a constant rate.
func (s Shape) settled() float64 {
	if s.Kind == ConstantLoad {
		return 0
	}
	return s.To.Seconds()
}

// OutageMode is what the server does to calls during an outage.
type OutageMode uint8

const (
	// Fail answers every call arriving in the window with an error at once,
	// doing nothing.
	Fail OutageMode = iota
	// Stall holds every call arriving in the window until the window ends,
	// then handles it as if it had just arrived.
	Stall
)

var outageNames = [...]string{"fail", "stall"}

// String is the mode's name, as UnmarshalText reads it.
func (m OutageMode) String() string { return enumName(outageNames[:], "OutageMode", m) }

// MarshalText is the mode's name.
func (m OutageMode) MarshalText() ([]byte, error) { return enumText(outageNames[:], "OutageMode", m) }

// UnmarshalText reads a mode's name.
func (m *OutageMode) UnmarshalText(text []byte) error { return parseText(m, text, parseOutageMode) }

// parseOutageMode reads an outage mode name.
func parseOutageMode(s string) (OutageMode, error) {
	return parseEnum[OutageMode](outageNames[:], s, "outage mode", "fail or stall")
}

// Outage is a window [From, To) of the run in which the server fails or
// stalls every call; none when To <= From.
type Outage struct {
	From, To time.Duration
	Mode     OutageMode
}

// On reports whether there is an outage.
func (o Outage) On() bool { return o.To > o.From }

// ServerKind is the server's model of latency and refusal.
type ServerKind uint8

const (
	// LatencyServer is Brooker's model: a call takes Base + Slope x (calls in
	// progress when it arrives, itself included), with no limit.
	LatencyServer ServerKind = iota
	// QueueServer has Workers workers and a FIFO queue of at most QueueMax waiting
	// calls; a call arriving to a full queue is rejected at once. Service
	// times follow Service.
	QueueServer
	// RateLimitServer answers "throttled" at once to calls beyond Limit a second
	// (a token bucket of Burst tokens); the others take Base.
	RateLimitServer
	// IndependentServer takes Base whatever the load: with PFail, the
	// load-independent failure rate of Part 5 and Brooker's retry posts.
	IndependentServer
)

var serverNames = [...]string{"latency", "queue", "ratelimit", "independent"}

// String is the kind's name, as UnmarshalText reads it.
func (k ServerKind) String() string { return enumName(serverNames[:], "ServerKind", k) }

// MarshalText is the kind's name.
func (k ServerKind) MarshalText() ([]byte, error) { return enumText(serverNames[:], "ServerKind", k) }

// UnmarshalText reads a kind's name.
func (k *ServerKind) UnmarshalText(text []byte) error { return parseText(k, text, parseServer) }

// parseServer reads a server kind name.
func parseServer(s string) (ServerKind, error) {
	return parseEnum[ServerKind](serverNames[:], s, "server", "one of "+strings.Join(serverNames[:], ", "))
}

// Dist is the distribution of the queue server's service times.
type Dist uint8

const (
	// LognormalService service: median Service.Median, log-sd Service.Sigma.
	LognormalService Dist = iota
	// ExponentialService service of mean Service.Median: the M/M/c queue whose mean
	// wait Erlang's C formula gives.
	ExponentialService
)

var distNames = [...]string{"lognormal", "exp"}

// String is the distribution's name, as UnmarshalText reads it.
func (d Dist) String() string { return enumName(distNames[:], "Dist", d) }

// MarshalText is the distribution's name.
func (d Dist) MarshalText() ([]byte, error) { return enumText(distNames[:], "Dist", d) }

// UnmarshalText reads a distribution's name.
func (d *Dist) UnmarshalText(text []byte) error { return parseText(d, text, parseDist) }

// parseDist reads a service distribution name.
func parseDist(s string) (Dist, error) {
	return parseEnum[Dist](distNames[:], s, "distribution", "lognormal or exp")
}

// Service is how long the queue server's workers take over a call.
type Service struct {
	Dist Dist
	// Median is the median (lognormal) or the mean (exp).
	Median time.Duration
	// Sigma is the lognormal's log-sd; 0 makes every call take Median.
	Sigma float64
}

// Server is the one server every client calls.
type Server struct {
	Kind ServerKind
	// Base is a call's latency, Slope the latency server's extra latency a
	// call in progress.
	Base, Slope time.Duration
	Workers     int
	QueueMax    int
	Service     Service
	// Limit is the rate limit in calls a second and Burst its bucket size.
	Limit, Burst float64
	// PFail is the probability that a call the server handles fails, doing
	// nothing, whatever the kind.
	PFail float64
	// Pushback makes the server's overload refusals (a full queue, the
	// rate limit) say "do not retry", as Envoy's x-envoy-overloaded and
	// gRPC's server pushback do; in a graph, a service with Pushback also
	// answers "do not retry" when it fails because a client of its own
	// honoured one (the signal travels up only through services that
	// forward it).
	Pushback bool
}

// Client is what every client does with a request. Clients says how many
// clients share the load: each request belongs to one of them, drawn
// uniformly (so each client's arrivals are a Poisson process of the rate
// over Clients), and a Policy not Shared keeps a state per client.
//
// A zero Clients, Timeout or Attempts means DefaultConfig's: one client, a
// 3 s timeout, 3 attempts; so a Client{} in a graph built in Go is one
// client that tries a call 3 times, waiting 3 s for each reply, with no
// backoff, no keys and no policy.
type Client struct {
	Clients int
	// Timeout is the wait for a reply to one attempt; a reply after it is
	// ignored (the work may be done: the client saw an error).
	Timeout time.Duration
	// Attempts counts tries in all, the first included.
	Attempts int
	// Backoff is the wait before each retry, after a timeout or an error.
	Backoff backoff.Schedule
	// Keys is the key an attempt carries: none, a fresh key an attempt
	// (the server's store catches a hedge's copies, not a retry) or the
	// request's key on every attempt (it catches both).
	Keys schema.KeyMode
	// Policy may refuse a retry the attempts would allow, a hedge, or (for
	// the kinds that stop first attempts too) a request.
	Policy PolicyConfig
	// Hedges is how many extra copies of an attempt may go out, one each
	// HedgeDelay seconds while no copy has succeeded and some copy is still
	// awaited: the attempt succeeds with its first successful copy and fails
	// once every copy sent has failed or timed out (then the next attempt,
	// if any, is hedged again). Copies carry the attempt's key, so with
	// Keys SameKey or FreshKeys a copy arriving while another is in the server is a
	// conflict, and without keys each copy that completes does the work.
	Hedges     int
	HedgeDelay time.Duration
	// HonourPushback makes the client give a request up, without a retry,
	// when an attempt is answered "do not retry" (Server.Pushback); a client
	// that does not honour it retries as after any error.
	HonourPushback bool
}

// withDefaults is cl with each zero field that Client says means a default
// set to it.
func (cl Client) withDefaults() Client {
	def := DefaultConfig().Client
	if cl.Clients == 0 {
		cl.Clients = def.Clients
	}
	if cl.Timeout == 0 {
		cl.Timeout = def.Timeout
	}
	if cl.Attempts == 0 {
		cl.Attempts = def.Attempts
	}
	return cl
}

// withDefaults is g with every entry's and call's client given its
// defaults (Client), its services and entries copied.
func (g Graph) withDefaults() Graph {
	g.Entries = slices.Clone(g.Entries)
	for k := range g.Entries {
		g.Entries[k].Client = g.Entries[k].Client.withDefaults()
	}
	g.Services = slices.Clone(g.Services)
	for v := range g.Services {
		calls := slices.Clone(g.Services[v].Calls)
		for i := range calls {
			calls[i].Client = calls[i].Client.withDefaults()
		}
		g.Services[v].Calls = calls
	}
	return g
}
