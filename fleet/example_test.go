package fleet_test

import (
	"context"
	"fmt"
	"time"

	"github.com/retrysim/retrysim/fleet"
)

// A load-independent server failing 10% of calls, three tries a request:
// success near 1 - 0.1^3 = 0.999 and 1.11 calls a request.
func ExampleRun() {
	cfg := fleet.Config{
		Name: "independent", Duration: 60 * time.Second,
		Load:   fleet.Shape{Kind: fleet.Constant, Rate: 100},
		Server: fleet.Server{Kind: fleet.Independent, Base: 50 * time.Millisecond, PFail: 0.1},
		Client: fleet.Client{Clients: 1, Timeout: 1 * time.Second, Attempts: 3},
		Net:    10 * time.Millisecond,
	}
	if err := cfg.Check(); err != nil {
		panic(err)
	}
	res, err := fleet.Run(context.Background(), []fleet.Config{cfg}, fleet.Options{Replicates: 4, Seed: 1, Workers: 2})
	if err != nil {
		panic(err)
	}
	s := res[0].Summary()
	requests, _ := s.Figure("requests") // the keys json and csv write
	succeeded, _ := s.Figure("succeeded")
	calls, _ := s.Figure("amplification")
	fmt.Printf("%s: %.0f requests, %.4f succeeded, %.3f calls a request\n", s.Run, requests.Value, succeeded.Value, calls.Value)
	// Output: independent: 6008 requests, 0.9993 succeeded, 1.110 calls a request
}

// neverRetry is a program's own policy: it lets every first attempt go
// and refuses every retry.
type neverRetry struct{}

func (neverRetry) Start(now, u float64) bool                                  { return true }
func (neverRetry) Retry(now float64, timeout bool, u float64) (bool, float64) { return false, 0 }
func (neverRetry) Sent(now float64, retry bool)                               {}
func (neverRetry) Answered(now float64, overload bool)                        {}
func (neverRetry) Success(now float64, retry bool, cost float64)              {}
func (neverRetry) Failure(now float64, retry, timeout bool)                   {}
func (neverRetry) Cancel(now float64, retry bool)                             {}

// A program's own policy in place of a built-in kind: refusing every retry
// that three attempts would allow, against a server failing 10% of calls,
// leaves success at 1 - 0.1 = 0.9 and one call a request.
func ExamplePolicyFactory() {
	cfg := fleet.Config{
		Name: "own", Duration: 60 * time.Second,
		Load:   fleet.Shape{Kind: fleet.Constant, Rate: 100},
		Server: fleet.Server{Kind: fleet.Independent, Base: 50 * time.Millisecond, PFail: 0.1},
		Client: fleet.Client{Attempts: 3, Policy: fleet.PolicyConfig{
			Own: &fleet.PolicyFactory{Name: "never retry", New: func() fleet.Policy { return neverRetry{} }}}},
		Net: 10 * time.Millisecond,
	}
	res, err := fleet.Run(context.Background(), []fleet.Config{cfg}, fleet.Options{Replicates: 4, Seed: 1})
	if err != nil {
		panic(err)
	}
	s := res[0].Summary()
	succeeded, _ := s.Figure("succeeded")
	calls, _ := s.Figure("amplification")
	fmt.Printf("%.2f succeeded, %.3f calls a request\n", succeeded.Value, calls.Value)
	// Output: 0.90 succeeded, 1.000 calls a request
}

// A graph built in Go: requests enter service a, which calls b; b fails
// 20% of calls and a's client tries it twice, so a request succeeds with
// 1 - 0.2^2 = 0.96 and b takes 1 + 0.2 = 1.2 calls a request. Its Client{}
// zero fields are the defaults: one client, a 3 s timeout.
func ExampleRunGraph() {
	g := fleet.Graph{Name: "a calls b", Duration: 60 * time.Second, Net: 5 * time.Millisecond,
		Services: []fleet.Node{
			{Name: "a", Server: fleet.Server{Kind: fleet.Independent, Base: 10 * time.Millisecond},
				Calls: []fleet.Call{{To: "b", Client: fleet.Client{Attempts: 2}}}},
			{Name: "b", Server: fleet.Server{Kind: fleet.Independent, Base: 20 * time.Millisecond, PFail: 0.2}},
		},
		Entries: []fleet.Entry{{To: "a", Load: fleet.Shape{Kind: fleet.Constant, Rate: 200}, Client: fleet.Client{Attempts: 1}}},
	}
	res, err := fleet.RunGraph(context.Background(), []fleet.Graph{g}, fleet.Options{Replicates: 2, Seed: 1})
	if err != nil {
		panic(err)
	}
	rows := res[0].Summaries() // the entry's from end to end, then a's and b's
	succeeded, _ := rows[0].Figure("succeeded")
	calls, _ := rows[2].Figure("amplification") // b's calls a request entering
	fmt.Printf("%s: %.3f succeeded (closed form %.3f); %s: %.3f calls a request (closed form %.3f)\n",
		rows[0].Service, succeeded.Value, 1-0.2*0.2, rows[2].Service, calls.Value, 1+0.2)
	// Output: end to end: a: 0.959 succeeded (closed form 0.960); b: 1.200 calls a request (closed form 1.200)
}

// A worker fleet: jobs of two steps on a queue that delivers each job up to
// 3 times; the first step's dependency fails 30% of calls and is tried
// twice, the second's 20%, once. A delivery passes both steps with
// s = (1 - 0.3^2)(1 - 0.2) = 0.728, so a job completes with 1 - (1 - s)^3.
func ExampleWorkers() {
	w := fleet.Workers{Name: "two steps", Duration: 120 * time.Second, Load: fleet.Shape{Kind: fleet.Constant, Rate: 100},
		Queue: fleet.Client{Attempts: 3, Timeout: fleet.NoVisibility}, WorkerCount: 1000, QueueMax: 10_000_000,
		Steps: []fleet.Step{{To: "d1", Client: fleet.Client{Attempts: 2}}, {To: "d2", Client: fleet.Client{Attempts: 1}}},
		Dependencies: []fleet.Node{
			{Name: "d1", Server: fleet.Server{Kind: fleet.Independent, Base: time.Millisecond, PFail: 0.3}},
			{Name: "d2", Server: fleet.Server{Kind: fleet.Independent, Base: time.Millisecond, PFail: 0.2}},
		}}
	res, err := fleet.RunGraph(context.Background(), []fleet.Graph{w.Graph()}, fleet.Options{Seed: 1})
	if err != nil {
		panic(err)
	}
	row := res[0].WorkersSummary()
	jobs, _ := row.Figure("jobs")
	completed, _ := row.Figure("completed")
	s := (1 - 0.3*0.3) * (1 - 0.2)
	fmt.Printf("%.3f of jobs completed (closed form %.3f)\n", completed.Value/jobs.Value, 1-(1-s)*(1-s)*(1-s))
	// Output: 0.980 of jobs completed (closed form 0.980)
}
