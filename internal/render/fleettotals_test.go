package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/fleet"
)

// The totals as each format prints them, written out by hand from two
// failure rates of two policies (one policy missing at the second rate).
func TestWriteFleetTotals(t *testing.T) {
	rows := []fleet.Totals{
		{Run: "no_retries", Clients: 100, FailureRate: 0.1, Requests: 1000, Succeeded: 900, Calls: 1000},
		{Run: "three_retries", Clients: 100, FailureRate: 0.1, Requests: 1000, Succeeded: 1000, Calls: 1111},
		{Run: "no_retries", Clients: 100, FailureRate: 0.5, Requests: 8, Succeeded: 4, Calls: 8},
	}
	for _, tc := range []struct {
		format    string
		byClients bool
		want      string
	}{
		{"csv", false, "failure_rate,policy,requests,succeeded,calls\n0.1,no_retries,1000,900,1000\n0.1,three_retries,1000,1000,1111\n0.5,no_retries,8,4,8\n"},
		{"csv", true, "clients,failure_rate,policy,requests,succeeded,calls\n100,0.1,no_retries,1000,900,1000\n100,0.1,three_retries,1000,1000,1111\n100,0.5,no_retries,8,4,8\n"},
		{"json", false, `{"title":"T","rows":[` +
			`{"failure_rate":0.1,"policy":"no_retries","requests":1000,"succeeded":900,"calls":1000},` +
			`{"failure_rate":0.1,"policy":"three_retries","requests":1000,"succeeded":1000,"calls":1111},` +
			`{"failure_rate":0.5,"policy":"no_retries","requests":8,"succeeded":4,"calls":8}]}`},
		{"markdown", false, `**T**

| Failure rate | no_retries succeeded | no_retries calls a request | three_retries succeeded | three_retries calls a request |
|-------------:|---------------------:|---------------------------:|------------------------:|------------------------------:|
|          0.1 |              90.000% |                     1.0000 |                100.000% |                        1.1110 |
|          0.5 |              50.000% |                     1.0000 |                       - |                             - |
`},
	} {
		var b bytes.Buffer
		if err := lookup(t, TotalsDoc, tc.format).FleetTotals(&b, "T", rows, tc.byClients); err != nil {
			t.Fatalf("%s: %v", tc.format, err)
		}
		got := b.String()
		if tc.format == "json" { // indentation is writeIndented's, not this test's
			var c bytes.Buffer
			if err := json.Compact(&c, b.Bytes()); err != nil {
				t.Fatal(err)
			}
			got = c.String()
		}
		if got != tc.want {
			t.Errorf("%s (clients %v):\n%s\nwant\n%s", tc.format, tc.byClients, got, tc.want)
		}
	}
	for _, name := range []string{"xml", "html"} {
		if _, err := Lookup(TotalsDoc, name); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("Lookup(TotalsDoc, %q) = %v; want an error naming it", name, err)
		}
	}
}
