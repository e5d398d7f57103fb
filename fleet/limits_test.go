package fleet

import (
	"slices"
	"strings"
	"testing"
)

// Every flag a limit names is one of the model's flags (Params) or a run
// flag, or a prefix of some (-bucket-*): a renamed flag fails here, not in
// -help.
func TestLimitsNameFlags(t *testing.T) {
	var names []string
	for _, p := range Params() {
		names = append(names, p.Key)
	}
	names = append(names, presetRunFlags[:]...)
	for _, l := range Limits() {
		for _, w := range strings.Fields(l.What + " " + l.Bound) {
			w = strings.Trim(w, "(),;")
			if !strings.HasPrefix(w, "-") {
				continue
			}
			name := strings.TrimPrefix(w, "-")
			if p, ok := strings.CutSuffix(name, "*"); ok {
				if !slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, p) }) {
					t.Errorf("%s: no flag starts -%s", l.What, p)
				}
			} else if !slices.Contains(names, name) {
				t.Errorf("%s: -%s is no flag", l.What, name)
			}
		}
	}
}
