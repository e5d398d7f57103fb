package fleetpreset

import (
	"testing"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/fleet"
)

// sourceEdge is a call of a preset's run as its source states it: who calls
// whom, with how many tries in all, under which budget.
type sourceEdge struct {
	from, to    string // from "" for the entry
	tries       int
	budgetRatio float64 // 0: no budget
}

// Each preset's runs, written out from their sources (not from the code):
// the SRE book's 4 attempts at the JavaScript, frontend and backend layers
// and its 10% per-client budget; the Builders' Library's 3 tries at 5
// layers; Istio's num_retries 2 (3 tries) at each sidecar, with Envoy's
// 25 ms jittered back-off capped at 10 times the base; and retry-one-layer's
// five placements of 3 tries.
func TestGraphPresetsFollowTheirSources(t *testing.T) {
	want := map[string]map[string][]sourceEdge{
		"sre-three-layers": {
			"4_attempts_each": {{"", "frontend", 4, 0}, {"frontend", "backend", 4, 0}, {"backend", "database", 4, 0}},
			"budget_10pct":    {{"", "frontend", 4, 0.1}, {"frontend", "backend", 4, 0.1}, {"backend", "database", 4, 0.1}},
		},
		"aws-five-deep": {
			"3_tries_each": {{"", "layer1", 3, 0}, {"layer1", "layer2", 3, 0}, {"layer2", "layer3", 3, 0}, {"layer3", "layer4", 3, 0}, {"layer4", "layer5", 3, 0}},
			"top_only":     {{"", "layer1", 3, 0}, {"layer1", "layer2", 1, 0}, {"layer2", "layer3", 1, 0}, {"layer3", "layer4", 1, 0}, {"layer4", "layer5", 1, 0}},
		},
		"retry-one-layer": {
			"every_layer": {{"", "api", 3, 0}, {"api", "svc", 3, 0}, {"svc", "db", 3, 0}},
			"top_only":    {{"", "api", 3, 0}, {"api", "svc", 1, 0}, {"svc", "db", 1, 0}},
			"bottom_only": {{"", "api", 1, 0}, {"api", "svc", 1, 0}, {"svc", "db", 3, 0}},
			"budgets":     {{"", "api", 3, 0.1}, {"api", "svc", 3, 0.1}, {"svc", "db", 3, 0.1}},
			"pushback":    {{"", "api", 3, 0}, {"api", "svc", 3, 0}, {"svc", "db", 3, 0}},
		},
		"mesh-default-retries": {
			"mesh_and_app": {{"", "app-proxy", 1, 0}, {"app-proxy", "svc", 3, 0}, {"svc", "svc-proxy", 3, 0}, {"svc-proxy", "db", 3, 0}},
			"mesh_off":     {{"", "app-proxy", 1, 0}, {"app-proxy", "svc", 1, 0}, {"svc", "svc-proxy", 3, 0}, {"svc-proxy", "db", 1, 0}},
			"app_off":      {{"", "app-proxy", 1, 0}, {"app-proxy", "svc", 3, 0}, {"svc", "svc-proxy", 1, 0}, {"svc-proxy", "db", 3, 0}},
		},
	}
	envoyBackoff := backoff.Policy{Kind: backoff.FullJitter, Base: 25 * time.Millisecond, Cap: 250 * time.Millisecond}
	for _, p := range GraphPresets() {
		runs, ok := want[p.Name]
		if !ok {
			t.Errorf("preset %s: no source written out", p.Name)
			continue
		}
		if p.Source == "" {
			t.Errorf("preset %s cites no source", p.Name)
		}
		graphs := p.Runs(p.Duration)
		if len(graphs) != len(runs) {
			t.Errorf("%s: %d runs, want %d", p.Name, len(graphs), len(runs))
		}
		for _, g := range graphs {
			if err := g.Check(); err != nil {
				t.Errorf("%s/%s: %v", p.Name, g.Name, err)
				continue
			}
			edges, ok := runs[g.Name]
			if !ok {
				t.Errorf("%s: run %s not in its source", p.Name, g.Name)
				continue
			}
			var got []sourceEdge
			var clients []fleet.Client
			for _, e := range g.Entries {
				got = append(got, sourceEdge{"", e.To, e.Client.Attempts, 0})
				clients = append(clients, e.Client)
			}
			for _, n := range g.Services {
				for _, c := range n.Calls {
					got = append(got, sourceEdge{n.Name, c.To, c.Client.Attempts, 0})
					clients = append(clients, c.Client)
				}
			}
			pushback := p.Name == "retry-one-layer" && g.Name == "pushback" // only it sends and honours "do not retry"
			for i, c := range clients {
				switch c.Policy.Kind {
				case fleet.FinagleBudget:
					if c.Policy.MinRate != 0 {
						t.Errorf("%s/%s: edge %d's budget has a reserve of %g a second; the SRE book's has none", p.Name, g.Name, i, c.Policy.MinRate)
					}
					got[i].budgetRatio = c.Policy.BudgetRatio
				case fleet.Unlimited:
				default:
					t.Errorf("%s/%s: edge %d has policy %s", p.Name, g.Name, i, c.Policy.Kind)
				}
				if p.Name == "mesh-default-retries" && got[i].from != "" && got[i].from != "svc" && c.Attempts == 3 && c.Backoff != envoyBackoff {
					t.Errorf("%s/%s: proxy edge %d backs off %+v, want Envoy's %+v", p.Name, g.Name, i, c.Backoff, envoyBackoff)
				}
				if c.HonourPushback != pushback {
					t.Errorf("%s/%s: edge %d honours pushback %v, want %v", p.Name, g.Name, i, c.HonourPushback, pushback)
				}
			}
			for _, n := range g.Services {
				if n.Server.Pushback != pushback {
					t.Errorf("%s/%s: %s's pushback %v, want %v", p.Name, g.Name, n.Name, n.Server.Pushback, pushback)
				}
			}
			if len(got) != len(edges) {
				t.Errorf("%s/%s: edges %v, want %v", p.Name, g.Name, got, edges)
				continue
			}
			for i := range got {
				if got[i] != edges[i] {
					t.Errorf("%s/%s: edge %d is %+v, want %+v", p.Name, g.Name, i, got[i], edges[i])
				}
			}
			// the bottom fails every call in the amplification presets
			if p.Name == "sre-three-layers" || p.Name == "aws-five-deep" {
				if last := g.Services[len(g.Services)-1]; last.Server.PFail != 1 {
					t.Errorf("%s/%s: the bottom service fails with probability %g, want 1", p.Name, g.Name, last.Server.PFail)
				}
			}
		}
	}
}
