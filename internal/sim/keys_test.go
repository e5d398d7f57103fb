package sim

import (
	"slices"
	"testing"

	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

// A key is in vain when no step honours keys and the strategy, or a step's
// own policy, sends one; a single keyed step makes every key count.
func TestKeysInVain(t *testing.T) {
	same := schema.SameKey
	plain := provider.Scenario{Steps: []provider.Step{{Name: "a"}, {Name: "b"}}}
	ownKey := provider.Scenario{Steps: []provider.Step{{Name: "a"}, {Name: "b", Policy: provider.Policy{Keys: &same}}}}
	keyed := provider.Scenario{Steps: []provider.Step{{Name: "a"}, {Name: "b", HonoursKeys: true}}}
	strategies := []strategy.Strategy{strategy.Retry{Keys: schema.NoKeys}, strategy.Retry{Keys: schema.FreshKeys}, strategy.Retry{Keys: schema.SameKey, Scope: strategy.WholeJob, SkipFinished: true}}
	for _, tc := range []struct {
		name string
		sc   provider.Scenario
		want []bool
	}{
		{"no keyed step", plain, []bool{false, true, true}},
		{"a step's own key", ownKey, []bool{true, true, true}},
		{"a keyed step", keyed, []bool{false, false, false}},
	} {
		if got := KeysInVain(tc.sc, strategies); !slices.Equal(got, tc.want) {
			t.Errorf("%s: KeysInVain = %v; want %v", tc.name, got, tc.want)
		}
	}
}
