package queue

import (
	"github.com/retrysim/retrysim/internal/jobsim"
	"github.com/retrysim/retrysim/strategy"
)

// ResumeOf returns s's fast path: Retry's, or a Straight's Resume; nil for every other type.
func ResumeOf(s strategy.Strategy) func(c strategy.Calls, from int) bool {
	switch v := s.(type) {
	case strategy.Retry, *strategy.Retry:
		return jobsim.RetryResume(v).(func(strategy.Calls, int) bool)
	case strategy.Straight:
		return v.Resume
	case *strategy.Straight:
		return v.Resume
	}
	return nil
}
