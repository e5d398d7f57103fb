package decl

import (
	"strings"
	"testing"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/internal/enum"
)

// BackoffKindsDoc, the list the settings' docs print, names every kind,
// each followed by a comma or by its formula in parentheses.
func TestBackoffKindsDocNamesEveryKind(t *testing.T) {
	for _, name := range enum.Names[backoff.Kind]() {
		if !strings.Contains(BackoffKindsDoc, name+", ") && !strings.Contains(BackoffKindsDoc, name+" (") {
			t.Errorf("BackoffKindsDoc does not name %q: %q", name, BackoffKindsDoc)
		}
	}
}
