// Package fleet is the coupled model of retries: many clients share one
// server (Config), a graph of services (Graph) or a worker fleet (Workers),
// so one client's retries change the latency and failures every client sees.
// It is a discrete-event simulation in virtual time whose numbers depend on
// the configuration and the seed alone, never on the number of workers; it
// computes and does not render. docs/fleet.md, docs/graph.md and
// docs/workers.md describe the models in full.
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
	Name     string        // labels the run in outputs
	Duration time.Duration // how long requests arrive
	Load     Shape
	Outage   Outage
	Server   Server
	Client   Client
	Net      time.Duration // the mean one-way network delay (0: none)

	// memoryless, when On, makes the run Markovian (fleetdata.Memoryless).
	memoryless fleetdata.Memoryless
}

// DefaultConfig is the run `retrysim fleet` makes by default: Brooker's
// collapse server at 40 requests a second for 60 s, every kind's parameters set.
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

var shapes = enumOf[ShapeKind]("ShapeKind", "shape", "", "constant", "ramp", "spike")

// String is the shape's name, as UnmarshalText reads it.
func (k ShapeKind) String() string { return shapes.name(k) }

// MarshalText is the shape's name.
func (k ShapeKind) MarshalText() ([]byte, error) { return shapes.text(k) }

// UnmarshalText reads a shape's name.
func (k *ShapeKind) UnmarshalText(text []byte) error { return shapes.set(k, text) }

// enumeration is the names of T's values, value 0 first; typ is T's Go
// name, what and want what it is and its names in an error.
type enumeration[T ~uint8] struct {
	names           []string
	typ, what, want string
}

// enumOf is the enumeration of names; want "" means one of them.
func enumOf[T ~uint8](typ, what, want string, names ...string) enumeration[T] {
	if want == "" {
		want = "one of " + strings.Join(names, ", ")
	}
	return enumeration[T]{names, typ, what, want}
}

// name is v's name, or typ(v) for a value that has none, so that printing
// a value Check refuses cannot panic.
func (e enumeration[T]) name(v T) string {
	if int(v) < len(e.names) {
		return e.names[v]
	}
	return fmt.Sprintf("%s(%d)", e.typ, v)
}

// text is v's name as MarshalText gives it, or an error for a value that
// has none.
func (e enumeration[T]) text(v T) ([]byte, error) {
	if int(v) >= len(e.names) {
		return nil, fmt.Errorf("%s(%d) has no name", e.typ, v)
	}
	return []byte(e.names[v]), nil
}

// parse is the value whose name is s.
func (e enumeration[T]) parse(s string) (T, error) {
	if i := slices.Index(e.names, s); i >= 0 {
		return T(i), nil
	}
	return 0, fmt.Errorf("unknown %s %q (want %s)", e.what, s, e.want)
}

// set sets *v to the value whose name is text, as UnmarshalText does.
func (e enumeration[T]) set(v *T, text []byte) error {
	x, err := e.parse(string(text))
	if err == nil {
		*v = x
	}
	return err
}

// Shape is the rate of a Poisson arrival process over time, in requests a
// second; FirstCall adds a first request from every client (docs/fleet.md).
type Shape struct {
	Kind      ShapeKind
	Rate      float64
	Peak      float64
	From, To  time.Duration
	FirstCall bool
}

// At is the rate at time t, in seconds.
func (s Shape) At(t float64) float64 { return s.at(t, s.From.Seconds(), s.To.Seconds()) }

// at is At with From and To in seconds, as the engine keeps them.
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

// settled is when the shape is back at its base rate for good, in seconds.
func (s Shape) settled() float64 {
	if s.Kind == ConstantLoad {
		return 0
	}
	return s.To.Seconds()
}

// OutageMode is what the server does to calls during an outage.
type OutageMode uint8

// The modes.
const (
	Fail  OutageMode = iota // an error at once, doing nothing
	Stall                   // held until the window ends, then handled
)

var outageModes = enumOf[OutageMode]("OutageMode", "outage mode", "fail or stall", "fail", "stall")

// String is the mode's name, as UnmarshalText reads it.
func (m OutageMode) String() string { return outageModes.name(m) }

// MarshalText is the mode's name.
func (m OutageMode) MarshalText() ([]byte, error) { return outageModes.text(m) }

// UnmarshalText reads a mode's name.
func (m *OutageMode) UnmarshalText(text []byte) error { return outageModes.set(m, text) }

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

// The kinds (docs/fleet.md, From Go).
const (
	LatencyServer     ServerKind = iota // Brooker's: Base + Slope x calls in progress
	QueueServer                         // Workers workers, a FIFO queue of QueueMax
	RateLimitServer                     // Limit calls a second, a bucket of Burst
	IndependentServer                   // Base whatever the load
)

var servers = enumOf[ServerKind]("ServerKind", "server", "", "latency", "queue", "ratelimit", "independent")

// String is the kind's name, as UnmarshalText reads it.
func (k ServerKind) String() string { return servers.name(k) }

// MarshalText is the kind's name.
func (k ServerKind) MarshalText() ([]byte, error) { return servers.text(k) }

// UnmarshalText reads a kind's name.
func (k *ServerKind) UnmarshalText(text []byte) error { return servers.set(k, text) }

// Dist is the distribution of the queue server's service times.
type Dist uint8

// The distributions.
const (
	LognormalService   Dist = iota // median Service.Median, log-sd Service.Sigma
	ExponentialService             // mean Service.Median (M/M/c)
)

var dists = enumOf[Dist]("Dist", "distribution", "lognormal or exp", "lognormal", "exp")

// String is the distribution's name, as UnmarshalText reads it.
func (d Dist) String() string { return dists.name(d) }

// MarshalText is the distribution's name.
func (d Dist) MarshalText() ([]byte, error) { return dists.text(d) }

// UnmarshalText reads a distribution's name.
func (d *Dist) UnmarshalText(text []byte) error { return dists.set(d, text) }

// Service is how long the queue server's workers take over a call.
type Service struct {
	Dist   Dist
	Median time.Duration // the median (lognormal) or the mean (exp)
	Sigma  float64       // the lognormal's log-sd; 0: every call takes Median
}

// Server is the one server every client calls; its Kind says which fields
// it reads (docs/fleet.md, From Go), and Pushback makes its overload
// refusals say "do not retry".
type Server struct {
	Kind         ServerKind
	Base, Slope  time.Duration
	Workers      int
	QueueMax     int
	Service      Service
	Limit, Burst float64
	PFail        float64
	Pushback     bool
}

// Client is what each of Clients clients does with a request (docs/fleet.md,
// From Go); a zero Clients, Timeout or Attempts means 1, 3 s and 3.
type Client struct {
	Clients        int
	Timeout        time.Duration
	Attempts       int
	Backoff        backoff.Schedule
	Keys           schema.KeyMode
	Policy         PolicyConfig
	Hedges         int
	HedgeDelay     time.Duration
	HonourPushback bool // give a request up when told "do not retry"
}

// withDefaults is cl with its zero fields that mean a default set to it.
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

// withDefaults is a copy of g with every client given its defaults.
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
