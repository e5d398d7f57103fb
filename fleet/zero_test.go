package fleet

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// A zero Client in a graph built in Go is one client, 3 attempts and a 3 s
// timeout, as Client documents, and zero Options run one replicate, as an
// Experiment's 0 does: each runs what the explicit values run, number for
// number. Before, Check refused both (client.clients: 0, replicates: 0).
func TestZeroValuesAreTheDefaults(t *testing.T) {
	graph := func(cl Client) Graph {
		return Graph{Name: "zero", Duration: 20 * time.Second, Net: 10 * time.Millisecond,
			Services: []Node{
				{Name: "a", Server: indep(20*time.Millisecond, 0.2), Calls: []Call{{To: "b", Client: cl}}},
				{Name: "b", Server: indep(time.Second, 0.3)},
			},
			Entries: []Entry{{To: "a", Load: Shape{Kind: Constant, Rate: 20}, Client: cl}}}
	}
	explicit := Client{Clients: 1, Timeout: 3 * time.Second, Attempts: 3}
	want, err := RunGraph(context.Background(), []Graph{graph(explicit)}, Options{Replicates: 1, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	zero := graph(Client{})
	got, err := RunGraph(context.Background(), []Graph{zero}, Options{Seed: 5})
	if err != nil {
		t.Fatalf("RunGraph(Client{}, Options{}) = %v; want the defaults", err)
	}
	if g, w := fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", want); g != w || got[0].replicates[0].Edges[0].Succeeded == 0 {
		t.Errorf("a zero Client and zero Options ran %s;\nwant what the defaults run, with successes, %s", g, w)
	}
	if zero.Entries[0].Client != (Client{}) || zero.Services[0].Calls[0].Client != (Client{}) {
		t.Errorf("RunGraph changed the caller's graph")
	}
	if err := zero.Check(); err != nil {
		t.Errorf("Graph.Check of zero clients = %v; want nil", err)
	}
	c := DefaultConfig()
	c.Duration, c.Client.Clients, c.Client.Timeout, c.Client.Attempts = 10*time.Second, 0, 0, 0
	res, err := Run(context.Background(), []Config{c}, Options{})
	if err != nil || len(res) != 1 || len(res[0].replicates) != 1 || res[0].Config.Client != DefaultConfig().Client {
		t.Errorf("Run of zero client fields and Options{} = %v; want one replicate of the default client", err)
	}
}
