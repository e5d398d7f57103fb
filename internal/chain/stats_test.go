package chain

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/metastable"
	"github.com/retrysim/retrysim/schema"
)

// byHand is one worker and one queue place, nothing retried: in collapse
// both hold an abandoned call, and the server is healthy once the worker's
// call ends, after an exponential time of mean 2 s. So the mean time to
// health is 2 s, and health comes within 1 s with probability 1 - e^-0.5.
var byHand = Model{Rate: 1, Workers: 1, Queue: 1, ServiceRate: 0.5, TimeoutRate: 0.5, BackoffRate: 1, Orbit: 5}

// Stats without a splitting hold the chain's answers as worked by hand and
// print them in three lines, collapse as the question names it.
func TestStatsByHand(t *testing.T) {
	collapse := "collapse (the orbit empty)"
	st, err := Question{Chain: build(t, byHand), Within: 1, Collapse: collapse}.Run(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "Mean", st.Mean, 2, 1e-9)
	near(t, "Health", st.Health, 1-math.Exp(-0.5), 1e-9)
	want := "states 7, transitions 14\n" +
		"mean time from " + collapse + " to health: 2 s\n" +
		fmt.Sprintf("probability of health within 1 s from %s: %.6g\n", collapse, 1-math.Exp(-0.5))
	if got := st.String(); got != want || st.Fold != nil {
		t.Errorf("Stats.String() = %q (fold %v); want %q", got, st.Fold, want)
	}
}

// Stats fold a splitting's runs as worked by hand: estimates 0.1 and 0.3
// have mean 0.2 and standard error sqrt(((0.01 + 0.09) - 0.4^2/2) / 1 / 2)
// = 0.1, relative error 0.5; crude replicates of 5 events each need
// (1 - 0.2) / (0.2 x 0.5^2) x 5 = 80 events for it, twice the runs' 40.
func TestStatsFoldSplitting(t *testing.T) {
	q := Question{Chain: build(t, byHand), Within: 1,
		Split: &Split{Splitting: metastable.Splitting{Levels: []int{1, 2}, Horizon: 3, Effort: 7}, Runs: 2}}
	items := []Item{{P: 0.1, Events: 10}, {P: 0.3, Events: 30}}
	for range CrudeRuns {
		items = append(items, Item{Events: 5})
	}
	st := q.Stats(Answers{Exact: 0.25}, items)
	s := st.Fold
	if s == nil || s.Events != 40 || s.Crude != 1000 {
		t.Fatalf("Fold = %+v; want 40 events, 1000 crude", s)
	}
	near(t, "Mean", s.Mean, 0.2, 1e-12)
	near(t, "StdErr", s.StdErr, 0.1, 1e-12)
	got := strings.SplitAfter(st.String(), "\n")
	lines := strings.Join(got[len(got)-4:], "")
	want := "probability the orbit reaches 2 within 3 s of an empty server: chain 0.25\n" +
		"multilevel splitting, 2 runs of 7 paths a level: 0.2, standard error 0.1 (relative error 0.5), 40 events\n" +
		"crude replicates for the same relative error: 80 events (5 a replicate), 2 times as many\n"
	if lines != want {
		t.Errorf("Stats.String() ends\n%s\nwant\n%s", lines, want)
	}
}

// Answer refuses a span that would take too many steps, naming it by its
// path, the span first in the message.
func TestAnswerRefusesSpan(t *testing.T) {
	_, err := Question{Chain: build(t, byHand), Within: 1e12}.Answer()
	var fe *schema.FieldError
	if !errors.As(err, &fe) || fe.Field != "within" || !strings.HasPrefix(fe.Msg, "1e+12 s: uniformisation would take") {
		t.Errorf("Answer() = %v; want within: 1e+12 s: uniformisation would take ...", err)
	}
}

// OrbitSplit's levels are each orbit size up to the target, and a state's
// importance is its orbit's size.
func TestOrbitSplit(t *testing.T) {
	sp := OrbitSplit(byHand.Config(10), 3, 9, 7, 4, 5)
	if !slices.Equal(sp.Levels, []int{1, 2, 3}) || sp.Horizon != 9 || sp.Effort != 7 || sp.Runs != 4 || sp.Seed != 5 || sp.Config.Duration != 10*time.Second {
		t.Errorf("OrbitSplit = %+v; want levels 1 to 3, horizon 9, effort 7, 4 runs, seed 5, 10 s", sp)
	}
	if got := sp.Importance(fleetdata.MarkovState{InServer: 2, Orbit: 2}); got != 2 {
		t.Errorf("Importance(orbit 2) = %d; want 2", got)
	}
}
