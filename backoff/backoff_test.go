package backoff

import (
	"testing"

	"github.com/retrysim/retrysim/internal/enum"
)

// The policies parse by their names, and an unknown name is refused with
// the names allowed.
func TestParseKind(t *testing.T) {
	for i, n := range enum.Names[Kind]() {
		if k, err := kinds.Parse(n); err != nil || k != Kind(i) || k.String() != n {
			t.Errorf("kinds.Parse(%q) = %v, %v", n, k, err)
		}
	}
	if _, err := kinds.Parse("linear"); err == nil || err.Error() != `unknown backoff "linear" (want one of none, constant, exponential, full-jitter, equal-jitter, decorrelated, sidekiq, river, grpc, oban, temporal)` {
		t.Errorf("kinds.Parse(linear) error = %v", err)
	}
}
