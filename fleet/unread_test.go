package fleet

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/pathtext"
	"github.com/retrysim/retrysim/schema"
)

// TestUnread names a constant load's peak and a run without hedges'
// hedge delay, and leaves what a latency server reads.
func TestUnread(t *testing.T) {
	c := Config{Load: Shape{Kind: ConstantLoad}, Server: Server{Kind: LatencyServer}, Client: Client{Attempts: 3}}
	got := c.Unread()
	for _, k := range []string{"load.peak", "load.from", "load.to", "outage.mode", "client.hedge_delay", "server.workers", "server.limit"} {
		if got[k] == "" {
			t.Errorf("Unread()[%q] is empty; want a reason", k)
		}
	}
	for _, k := range []string{"server.slope", "server.base", "client.backoff.kind"} {
		if got[k] != "" {
			t.Errorf("Unread()[%q] = %q; want it read", k, got[k])
		}
	}
}

// DefaultConfig runs as it is, and stays a valid run whichever server or
// policy is chosen, with nothing else changed: a command that starts from
// it can offer every kind with its defaults. Its policy parameters are
// DefaultPolicy's.
func TestDefaultConfigRunsEveryKind(t *testing.T) {
	if got := DefaultConfig().Client.Policy; got != DefaultPolicy() {
		t.Errorf("DefaultConfig's policy = %+v; want DefaultPolicy %+v", got, DefaultPolicy())
	}
	for _, server := range []ServerKind{LatencyServer, QueueServer, RateLimitServer, IndependentServer} {
		for k := range PolicyKind(len(policies.names)) {
			c := DefaultConfig()
			c.Server.Kind, c.Client.Policy.Kind = server, k
			if err := c.Check(); err != nil {
				t.Errorf("DefaultConfig with server %s, policy %s: %v", server, k, err)
			}
		}
	}
}

// scopes.parse reads the names scopes.name prints, and only those.
func TestParseScope(t *testing.T) {
	for _, shared := range []bool{false, true} {
		if got, err := scopes.parse(scopes.name(shared)); err != nil || got != shared {
			t.Errorf("scopes.parse(scopes.name(%v)) = %v, %v", shared, got, err)
		}
	}
	if _, err := scopes.parse("global"); err == nil || err.Error() != `unknown scope "global" (want client or fleet)` {
		t.Errorf("scopes.parse(global) = %v", err)
	}
}

// Params names each setting once; every policy parameter is one of them,
// and setParam writes where its Field reads, whole numbers into counts and
// seconds into times.
func TestParams(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range decl.Params[Config]() {
		if seen[p.Path] || seen["key "+p.Key] {
			t.Errorf("%s (%s) is listed twice", p.Path, p.Key)
		}
		seen[p.Path], seen["key "+p.Key] = true, true
	}
	for _, name := range policyPaths() {
		p, ok := decl.LookupParam[Config](name)
		if !ok {
			t.Errorf("policy parameter %s is not a decl.Param[Config]", name)
			continue
		}
		var pol PolicyConfig
		if err := pol.setParam(name, 7); err != nil {
			t.Errorf("setParam(%s, 7) = %v", name, err)
		}
		c := Config{Client: Client{Policy: pol}}
		var got float64
		switch f := p.Field(&c).(type) {
		case *float64:
			got = *f
		case *int:
			got = float64(*f)
		case *time.Duration:
			got = f.Seconds()
		default:
			t.Errorf("%s: a field of kind %T", name, f)
		}
		if got != 7 {
			t.Errorf("setParam(%s, 7), then its Field reads %g", name, got)
		}
	}
	var pol PolicyConfig
	if err := pol.setParam("client.policy.window", 2.5); err == nil {
		t.Errorf("setParam(client.policy.window, 2.5) = nil; want a whole number refused")
	}
	if err := pol.setParam("load.rate", 1); err == nil {
		t.Errorf("setParam(load.rate, 1) = nil; want it refused: load.rate is the load's, not a policy's")
	}
}

// hidden is a text with each setting it names as a pathtext.Path replaced by
// "#": a path still in it is one a reader could not name in its words.
func hidden(t interface {
	Words(func(string) string) string
}) string {
	return t.Words(func(string) string { return "#" })
}

// leftPath is a setting's path (of a Param, dotted) that text holds.
func leftPath(text string) string {
	for _, p := range decl.Params[Config]() {
		if strings.Contains(p.Path, ".") && strings.Contains(text, p.Path) {
			return p.Path
		}
	}
	return ""
}

// Every setting a Param's Usage, an Unread reason or a Check refusal names
// is a pathtext.Path argument, so that a command names it as its flag and a
// file as its key from the declaration, not by finding it in the text:
// with every Path hidden, no setting's path is left, for every server and
// policy kind, retried or not, and for refusals of each kind.
func TestTextsNameSettingsAsPaths(t *testing.T) {
	for _, p := range decl.Params[Config]() {
		if left := leftPath(hidden(p.Usage)); left != "" {
			t.Errorf("%s: Usage names %s in its text: %s", p.Path, left, p.Usage)
		}
	}
	for server := range ServerKind(len(servers.names)) {
		for k := range PolicyKind(len(policies.names)) {
			for _, attempts := range []int{1, 3} {
				c := DefaultConfig()
				c.Server.Kind, c.Client.Policy.Kind, c.Client.Attempts = server, k, attempts
				for path, why := range c.unreadWhy() {
					if left := leftPath(hidden(why)); left != "" {
						t.Errorf("%s, %s, %d attempts: Unread()[%s] names %s in its text: %s", server, k, attempts, path, left, why)
					}
				}
			}
		}
	}
	ramp := DefaultConfig()
	ramp.Load = Shape{Kind: RampLoad, Rate: 10, Peak: 5, From: time.Second, To: 5 * time.Second}
	grpc := DefaultConfig()
	grpc.Client.Policy.Kind, grpc.Client.Policy.MaxTokens, grpc.Client.Policy.Ratio = GRPCThrottle, 2, 5
	spike := DefaultConfig()
	spike.Load = Shape{Kind: SpikeLoad, Rate: 10, Peak: 20, From: 10 * time.Second, To: 5 * time.Second}
	for _, c := range []Config{ramp, grpc, spike} {
		var fe *schema.FieldError
		if err := c.Check(); !errors.As(err, &fe) || pathtext.FieldWords(fe, func(string) string { return "#" }) == fe.Msg {
			t.Errorf("Check() = %v; want a refusal naming a setting", err)
		} else if left := leftPath(pathtext.FieldWords(fe, func(string) string { return "#" })); left != "" {
			t.Errorf("Check() = %v: names %s in its text", err, left)
		}
	}
}
