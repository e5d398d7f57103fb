package queue

import (
	"testing"

	"github.com/retrysim/retrysim/strategy"
)

// embedsRetry overrides Run of the Retry it embeds; embedsStraight does the
// same with a Straight.
type embedsRetry struct{ strategy.Retry }

func (embedsRetry) Run(strategy.Calls) bool { return false }

type embedsStraight struct{ strategy.Straight }

func (embedsStraight) Run(strategy.Calls) bool { return false }

// The fast path is opt-in: a Retry (value or pointer) and a Straight with a
// Resume have one; a type that embeds either, a Straight with no Resume,
// and any other strategy have none. Before, any type with a Resume method,
// an embedded one included, was taken for the fast path.
func TestResumeOfIsOptIn(t *testing.T) {
	r := strategy.Retry{Scope: strategy.EachStep, Attempts: 3}
	st := strategy.Straight{Strategy: r, Resume: ResumeOf(r)}
	for _, c := range []struct {
		s    strategy.Strategy
		fast bool
	}{
		{r, true}, {&r, true}, {st, true}, {&st, true},
		{embedsRetry{r}, false}, {&embedsRetry{r}, false}, {embedsStraight{st}, false},
		{strategy.Straight{Strategy: r}, false},
	} {
		if got := ResumeOf(c.s) != nil; got != c.fast {
			t.Errorf("ResumeOf(%T) has a fast path: %t; want %t", c.s, got, c.fast)
		}
	}
}
