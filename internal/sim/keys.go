package sim

import (
	"slices"

	"github.com/retrysim/retrysim/internal/jobsim"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

// KeysInVain reports, for each strategy.Retry, whether it sends an idempotency key although no step
// of sc honours keys.
func KeysInVain(sc provider.Scenario, strategies []strategy.Strategy) []bool {
	vain := make([]bool, len(strategies))
	if slices.ContainsFunc(sc.Steps, func(st provider.Step) bool { return st.HonoursKeys }) {
		return vain
	}
	for i, s := range strategies {
		if r, ok := s.(strategy.Retry); ok {
			vain[i] = slices.ContainsFunc(sc.Steps, func(st provider.Step) bool {
				return jobsim.StepKeys(st.Retry, r.Keys) != schema.NoKeys
			})
		}
	}
	return vain
}
