package fleet

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/retrysim/retrysim/schema"
)

// A sweep's items, run in any slices, are each point's replicates as Run
// makes them for the point's configuration set by hand, and fold back into
// the runs' results (compared as text: a figure not judged is NaN).
func TestRunSweepSlices(t *testing.T) {
	base := DefaultConfig()
	base.Duration = 5 * time.Second
	runs, err := SweepConfigs([]Config{base}, []string{"client.timeout", "attempts"}, [][]string{{"1s", "2"}, {"3s", "2"}})
	if err != nil {
		t.Fatal(err)
	}
	if runs[0].Client.Timeout != time.Second || runs[1].Client.Timeout != 3*time.Second || runs[1].Client.Attempts != 2 {
		t.Fatalf("SweepConfigs set %+v, %+v", runs[0].Client, runs[1].Client)
	}
	opt := Options{Replicates: 3, Seed: 7, Workers: 2}
	ctx := context.Background()
	var items [][]Replicate
	for _, cut := range [][2]int{{0, 2}, {2, 5}, {5, 6}} { // a point cut, a whole one
		got, err := RunSweep(ctx, runs, 1, opt, cut[0], cut[1])
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, got...)
	}
	for p, c := range runs {
		c = base
		c.Client.Timeout, c.Client.Attempts = []time.Duration{time.Second, 3 * time.Second}[p], 2
		want, err := Run(ctx, []Config{c}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if got := SweepResults(runs, 1, items)[p]; fmt.Sprintf("%+v", got.Replicates) != fmt.Sprintf("%+v", want[0].Replicates) || got.Config.Client.Timeout != c.Client.Timeout {
			t.Errorf("point %d: the sweep's result is not Run's", p)
		}
	}
}

// A setting no run has, or a value out of bounds, is refused naming its
// path.
func TestSweepConfigsRefuses(t *testing.T) {
	for _, tc := range []struct{ path, value string }{{"client.nope", "1"}, {"client.attempts", "0"}, {"timeout", "soon"}} {
		_, err := SweepConfigs([]Config{DefaultConfig()}, []string{tc.path}, [][]string{{tc.value}})
		var fe *schema.FieldError
		if !errors.As(err, &fe) || fe.Field != tc.path {
			t.Errorf("%s=%s: %v; want a *FieldError naming it", tc.path, tc.value, err)
		}
	}
}
