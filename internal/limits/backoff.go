package limits

import (
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/schema"
)

// Backoff reports the first thing wrong with b as a *schema.FieldError naming its field
// (policy, base, cap): durations within [0, MaxDuration], then backoff.Schedule.Check.
func Backoff(b backoff.Schedule) error {
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
