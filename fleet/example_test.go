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
	fmt.Printf("%s: %.0f requests, %.4f succeeded, %.3f calls a request\n", s.Run, s.Requests.Value, s.Succeeded.Value, s.Amplification.Value)
	// Output: independent: 6008 requests, 0.9993 succeeded, 1.110 calls a request
}
