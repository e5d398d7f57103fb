package sim

import (
	"github.com/retrysim/retrysim/internal/jobsim"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

// KeysInVain reports, for each strategy.Retry, whether it sends an idempotency key although no step
// of sc honours keys.
func KeysInVain(sc provider.Scenario, strategies []strategy.Strategy) []bool {
	vain := make([]bool, len(strategies))
	for _, st := range sc.Steps {
		if st.HonoursKeys {
			return vain
		}
	}
	for i, s := range strategies {
		r, ok := s.(strategy.Retry)
		if !ok {
			continue
		}
		for _, st := range sc.Steps {
			if jobsim.StepKeys(st.Retry, r.Keys) != schema.NoKeys {
				vain[i] = true
			}
		}
	}
	return vain
}
