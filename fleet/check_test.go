package fleet

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/schema"
)

// small is a run that takes a moment: 10 s at 20 requests a second.
func small() Config {
	c := DefaultConfig()
	c.Duration, c.Load.Rate = 10*time.Second, 20
	return c
}

// The reproducers of issue 20, items 5 and 6: Run refuses, before any work
// and with a *schema.FieldError naming the field, what the command refuses. Before,
// Attempts -5 gave 100% success, PFail 7 ran, zero Options gave no
// replicates and NaN everywhere, Server.Kind 9 ran with every request timing
// out, and Policy.Kind 42 passed Check.
func TestRunChecksItsInput(t *testing.T) {
	one := Options{Replicates: 1, Workers: 1}
	for _, tc := range []struct {
		name string
		f    func(*Config)
		opt  Options
		path string
		msg  string
	}{
		{"attempts -5", func(c *Config) { c.Client.Attempts = -5 }, one, "client.attempts", "-5 is not from 1 to 100"},
		{"p-fail 7", func(c *Config) { c.Server.PFail = 7 }, one, "server.p_fail", "7 is not a probability in [0, 1]"},
		{"replicates -1", func(*Config) {}, Options{Replicates: -1}, "replicates", "-1 is not from 1 to 1000"},
		{"server kind 9", func(c *Config) { c.Server.Kind = 9 }, one, "server.kind", "9 is not a server kind (want one of latency, queue, ratelimit, independent)"},
		{"policy kind 42", func(c *Config) { c.Client.Policy.Kind = 42 }, one, "client.policy.kind", "42 is not a policy (want one of unlimited, "},
		{"shape 3", func(c *Config) { c.Load.Kind = 3 }, one, "load.kind", "3 is not a shape"},
		{"outage mode 2", func(c *Config) { c.Outage.Mode = 2 }, one, "outage.mode", "2 is not an outage mode"},
		{"keys 3", func(c *Config) { c.Client.Keys = 3 }, one, "client.keys", "3 is not a key mode (want one of none, fresh, same)"},
		{"service dist 2", func(c *Config) { c.Server.Kind, c.Server.Service.Dist = QueueServer, 2 }, one, "server.service.dist", "2 is not a distribution"},
		{"backoff kind 99", func(c *Config) { c.Client.Backoff.Kind = 99 }, one, "client.backoff.kind", "99 is not a backoff policy (want one of none, constant, "},
		{"backoff cap below base", func(c *Config) {
			c.Client.Backoff = backoff.Schedule{Kind: backoff.Exponential, Base: time.Second, Cap: time.Millisecond}
		}, one, "client.backoff.cap", "1ms is below the base 1s (0 means no cap)"},
		{"token bucket literal", func(c *Config) { c.Client.Policy = PolicyConfig{Kind: TokenBucket} }, one, "client.policy.kind",
			"token-bucket with every parameter 0, which never allows a retry; start from DefaultPolicy() and set its Kind"},
		{"workers -1", func(*Config) {}, Options{Replicates: 1, Workers: -1}, "workers", "-1 is not 0 (GOMAXPROCS) or more"},
		{"first -1", func(*Config) {}, Options{Replicates: 1, first: -1}, "first", "-1 is not 0 or more: a replicate's index"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := small()
			tc.f(&c)
			res, err := Run(context.Background(), []Config{c}, tc.opt)
			var fe *schema.FieldError
			if res != nil || !errors.As(err, &fe) || fe.Field != tc.path || !strings.HasPrefix(fe.Msg, tc.msg) || err.Error() != tc.path+": "+fe.Msg {
				t.Errorf("Run = %d results, %v; want none and a *FieldError %s: %s", len(res), err, tc.path, tc.msg)
			}
			c.Unread() // names every kind without a panic
		})
	}
	if _, err := Run(context.Background(), nil, Options{Replicates: 1}); err == nil {
		t.Error("Run of no configuration = nil error; want one")
	}
}

// Unread names settings by their Params paths, for every server and
// policy kind, retried or not: a reason keyed by anything else would be a
// rule no flag, file key or echo could follow.
func TestUnreadNamesParams(t *testing.T) {
	for server := range ServerKind(len(servers.names)) {
		for k := range PolicyKind(len(policies.names)) {
			for _, attempts := range []int{1, 3} {
				c := DefaultConfig()
				c.Server.Kind, c.Client.Policy.Kind, c.Client.Attempts = server, k, attempts
				for path, why := range c.Unread() {
					if _, ok := decl.LookupParam[Config](path); !ok || why == "" {
						t.Errorf("%s, %s, %d attempts: Unread names %q (%q), no setting", server, k, attempts, path, why)
					}
				}
			}
		}
	}
}

// The String of a kind Check refuses names it by number, rather than
// panicking as it did: an error message can print it.
func TestEnumStringsOutOfRange(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{ShapeKind(3).String(), "ShapeKind(3)"},
		{OutageMode(2).String(), "OutageMode(2)"},
		{ServerKind(9).String(), "ServerKind(9)"},
		{Dist(2).String(), "Dist(2)"},
		{schema.KeyMode(7).String(), "key mode(7)"}, // enum.Enum's spelling
		{PolicyKind(42).String(), "PolicyKind(42)"},
		{QueueServer.String(), "queue"},
	} {
		if tc.got != tc.want {
			t.Errorf("String() = %q; want %q", tc.got, tc.want)
		}
	}
}

// Zero Workers is GOMAXPROCS, and the numbers are those of one worker.
func TestZeroWorkersIsGOMAXPROCS(t *testing.T) {
	c := small()
	a, err := Run(context.Background(), []Config{c}, Options{Replicates: 3, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(context.Background(), []Config{c}, Options{Replicates: 3, Seed: 5, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range a[0].replicates {
		if a[0].replicates[i].Requests != b[0].replicates[i].Requests || a[0].replicates[i].Succeeded != b[0].replicates[i].Succeeded {
			t.Errorf("replicate %d: %d of %d with Workers 0, %d of %d with 1", i,
				a[0].replicates[i].Succeeded, a[0].replicates[i].Requests, b[0].replicates[i].Succeeded, b[0].replicates[i].Requests)
		}
	}
}

// FuzzCheckOrRun builds a configuration from the fuzzer's raw values through
// the public types, enums, negatives and NaNs included: Check refuses it
// with a *schema.FieldError naming a setting, or, when it is cheap enough to run in
// a moment, Run completes it without a panic or an error; and Unread never
// panics.
func FuzzCheckOrRun(f *testing.F) {
	f.Add(int64(10*time.Second), 20.0, 40.0, int64(2*time.Second), int64(5*time.Second), uint8(0), uint8(0), uint8(0), uint8(0), uint8(0), uint8(0), 3, 0, 1, 0.5, int64(time.Second), int64(10*time.Millisecond), int64(100*time.Millisecond), 0.0, int64(3*time.Second), int64(0), int64(0), int64(50*time.Millisecond), 8, 100)
	f.Add(int64(5*time.Second), 30.0, 60.0, int64(time.Second), int64(4*time.Second), uint8(2), uint8(1), uint8(1), uint8(1), uint8(1), uint8(7), 4, 2, 3, 0.2, int64(100*time.Millisecond), int64(0), int64(0), 0.3, int64(time.Second), int64(time.Millisecond), int64(time.Second), int64(20*time.Millisecond), 2, 5)
	f.Add(int64(3*time.Second), 50.0, 10.0, int64(0), int64(2*time.Second), uint8(1), uint8(0), uint8(2), uint8(0), uint8(0), uint8(8), 2, 1, 2, 0.0, int64(50*time.Millisecond), int64(0), int64(10*time.Millisecond), 0.1, int64(500*time.Millisecond), int64(0), int64(0), int64(10*time.Millisecond), 1, 0)
	f.Add(int64(4*time.Second), 10.0, 10.0, int64(0), int64(0), uint8(9), uint8(5), uint8(9), uint8(3), uint8(4), uint8(42), -5, -1, 0, math.NaN(), int64(-1), int64(1<<62), int64(0), 7.0, int64(0), int64(-1), int64(0), int64(0), 0, -1)
	f.Fuzz(func(t *testing.T, dur int64, rate, peak float64, from, to int64, shape, outage, server, dist, keys, policy uint8,
		attempts, hedges, clients int, sigma float64, base, slope, net int64, pFail float64, timeout, backoffBase, backoffCap int64,
		hedgeDelay int64, workers, queue int) {
		c := DefaultConfig()
		c.Duration = time.Duration(dur)
		c.Load = Shape{Kind: ShapeKind(shape), Rate: rate, Peak: peak, From: time.Duration(from), To: time.Duration(to)}
		if outage%3 != 0 {
			c.Outage = Outage{From: time.Duration(from), To: time.Duration(to), Mode: OutageMode(outage / 3)}
		}
		c.Server = Server{Kind: ServerKind(server), Base: time.Duration(base), Slope: time.Duration(slope), Workers: workers, QueueMax: queue,
			Service: Service{Dist: Dist(dist), Median: time.Duration(base), Sigma: sigma}, Limit: rate, Burst: float64(queue), PFail: pFail}
		c.Net = time.Duration(net)
		c.Client.Clients, c.Client.Attempts, c.Client.Hedges = clients, attempts, hedges
		c.Client.Timeout, c.Client.HedgeDelay = time.Duration(timeout), time.Duration(hedgeDelay)
		c.Client.Keys = schema.KeyMode(keys)
		c.Client.Backoff = backoff.Schedule{Kind: backoff.Kind(int(policy) % 12), Base: time.Duration(backoffBase), Cap: time.Duration(backoffCap)}
		c.Client.Policy.Kind = PolicyKind(policy)
		c.Client.Policy.Shared = keys%2 == 1
		c.Unread()
		opt := Options{Replicates: 1, Seed: uint64(attempts), Workers: 1}
		if err := Check([]Config{c}, opt); err != nil {
			var fe *schema.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Check = %v; want a *FieldError", err)
			}
			if _, ok := decl.LookupParam[Config](fe.Field); !ok && !strings.Contains("duration outage.from outage.to replicates", fe.Field) {
				t.Fatalf("Check = %v: %s is no setting", err, fe.Field)
			}
			return
		}
		if e := c.cost(); e.Events > 2e5 || e.Bytes > 64<<20 {
			return // too big to run in a moment
		}
		if _, err := Run(context.Background(), []Config{c}, opt); err != nil {
			t.Fatalf("Run of a configuration Check passed = %v", err)
		}
	})
}

// Check bounds every setting Params bounds (Lo and Hi, or a probability)
// by those bounds: for each, in a configuration that reads it, a value just
// outside either bound is refused with a *schema.FieldError naming its path. The
// bounds are the table's, so a bound changed in Params changes what Check
// refuses, and a setting Check forgets fails here.
func TestCheckBoundsAreParams(t *testing.T) {
	var bases []Config
	for s := LatencyServer; s <= IndependentServer; s++ {
		for k := PolicyKind(0); int(k) < len(policies.names); k++ {
			c := DefaultConfig()
			c.Load = Shape{Kind: SpikeLoad, Rate: 10, Peak: 20, From: 10 * time.Second, To: 20 * time.Second}
			c.Server.Kind, c.Client.Policy.Kind = s, k
			c.Client.Attempts, c.Client.Hedges = 2, 1
			if err := c.Check(); err != nil {
				t.Fatalf("server %v, policy %v: %v", s, k, err)
			}
			bases = append(bases, c)
		}
	}
	for _, p := range decl.Params[Config]() {
		lo, hi := p.Lo, p.Hi
		if p.Probability {
			lo, hi = 0, 1
		}
		if hi <= lo {
			continue // a time or a name: bounded elsewhere
		}
		i := slices.IndexFunc(bases, func(c Config) bool { return c.Unread()[p.Path] == "" })
		if i < 0 {
			t.Errorf("%s: no configuration reads it", p.Path)
			continue
		}
		for _, v := range []float64{lo - 1, hi + 1} {
			if v == 0 && (p.Path == "client.clients" || p.Path == "client.attempts") {
				v = -1 // 0 is the default (Client)
			}
			c := bases[i]
			switch f := p.Field(&c).(type) {
			case *float64:
				*f = v
			case *int:
				*f = int(v)
			default:
				t.Fatalf("%s: bounds on a %T", p.Path, f)
			}
			var fe *schema.FieldError
			if err := c.Check(); !errors.As(err, &fe) || fe.Field != p.Path {
				t.Errorf("%s = %g: Check = %v; want a *FieldError for %s", p.Path, v, err, p.Path)
			}
		}
	}
}
