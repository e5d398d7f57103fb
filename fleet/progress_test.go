package fleet

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// Progress is told of every replicate's seconds up to their total, within a
// replicate as it goes (at least once every 65,536 events), and telling it
// changes no number.
func TestRunProgress(t *testing.T) {
	c := DefaultConfig()
	c.Server = Server{Kind: Independent, Base: 10 * time.Millisecond}
	c.Load.Rate, c.Duration = 1000, 30500*time.Millisecond
	opt := Options{Replicates: 3, Seed: 1, Workers: 2}
	plain, err := Run(context.Background(), []Config{c}, opt)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var calls, last, total int64
	opt.Progress = func(done, tot int64) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		last, total = max(last, done), tot
	}
	told, err := Run(context.Background(), []Config{c}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(3 * 31); total != want || last != want {
		t.Errorf("progress reached %d of %d; want %d of %d", last, total, want, want)
	}
	if ev := told[0].replicates[0].Events; calls < 3*(ev>>16) {
		t.Errorf("progress told %d times for 3 replicates of %d events; want at least %d", calls, ev, 3*(ev>>16))
	}
	// Printed, since a run without a trigger holds NaN recovery figures,
	// which reflect.DeepEqual never finds equal.
	if fmt.Sprintf("%+v", plain) != fmt.Sprintf("%+v", told) {
		t.Error("the results differ with Progress set")
	}
}
