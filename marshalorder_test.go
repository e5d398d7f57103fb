package retrysim_test

import (
	"encoding/json"
	"testing"

	"github.com/retrysim/retrysim"
)

// TestReportJSONNamesOneBadField reads a report whose row has several bad fields: the error names
// the same one every time (the counters in their order, then the steps' keys by name), not
// whichever a map happened to visit first.
func TestReportJSONNamesOneBadField(t *testing.T) {
	for _, tc := range []struct{ row, want string }{
		{`{"jobs":"x","failed":"y","calls":"z","lost_work":"w"}`, "rows[0].jobs: "},
		{`{"repeated_step_2":"x","duplicate_users_step_1":"y","repeated_step_1":"z"}`, "rows[0].duplicate_users_step_1: "},
	} {
		doc := `{"scenario":"signup","rows":[` + tc.row + `]}`
		for range 50 {
			var rep retrysim.Report
			err := json.Unmarshal([]byte(doc), &rep)
			if err == nil || len(err.Error()) < len(tc.want) || err.Error()[:len(tc.want)] != tc.want {
				t.Fatalf("reading %s: %v, want an error starting %q", tc.row, err, tc.want)
			}
		}
	}
}
