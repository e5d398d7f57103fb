package jobapi

import (
	"errors"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/schema"
)

// Expectations are refused for a run of the delivery model only, as a
// FieldError naming expect, whether the run is about to start or merged.
func TestCheckExpect(t *testing.T) {
	for _, tt := range []struct{ expect, delivery, refused bool }{
		{false, false, false}, {true, false, false}, {false, true, false}, {true, true, true},
	} {
		err := CheckExpect(tt.expect, tt.delivery)
		var fe *schema.FieldError
		if (err != nil) != tt.refused || err != nil && (!errors.As(err, &fe) || fe.Field != "expect" || !strings.Contains(fe.Msg, "delivery model")) {
			t.Errorf("CheckExpect(%v, %v) = %v; refused %v", tt.expect, tt.delivery, err, tt.refused)
		}
	}
}
