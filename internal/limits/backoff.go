package limits

import (
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/schema"
)

// Backoff reports the first thing wrong with b as a *schema.FieldError
// naming its field (policy, base, cap): each duration held to
// not negative and at most MaxDuration, then backoff.Policy.Check: a step's
// own backoff and a scenario file's.
func Backoff(b backoff.Policy) error {
	for _, d := range []struct {
		field string
		v     time.Duration
	}{{"base", b.Base}, {"cap", b.Cap}} {
		if err := Duration(d.v); err != nil {
			return &schema.FieldError{Field: d.field, Msg: err.Error()}
		}
	}
	return b.Check()
}
