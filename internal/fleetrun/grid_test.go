package fleetrun

import (
	"errors"
	"testing"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/schema"
)

// A setting no run has, or a value out of bounds, is refused naming its
// path.
func TestSweepConfigsRefuses(t *testing.T) {
	for _, tc := range []struct{ path, value string }{{"client.nope", "1"}, {"client.attempts", "0"}, {"timeout", "soon"}} {
		_, err := SweepConfigs([]fleet.Config{fleet.DefaultConfig()}, []string{tc.path}, [][]string{{tc.value}})
		var fe *schema.FieldError
		if !errors.As(err, &fe) || fe.Field != tc.path {
			t.Errorf("%s=%s: %v; want a *schema.FieldError naming it", tc.path, tc.value, err)
		}
	}
}
