package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/fleetpreset"
	"github.com/retrysim/retrysim/internal/fleetrun"
)

// The totals as each format prints them, written out by hand from two
// failure rates of two policies (one policy missing at the second rate).
func TestWriteFleetTotals(t *testing.T) {
	rows := []fleetdata.Totals{
		{Run: "no_retries", Clients: 100, FailureRate: 0.1, Requests: 1000, Succeeded: 900, Calls: 1000},
		{Run: "4_tries", Clients: 100, FailureRate: 0.1, Requests: 1000, Succeeded: 1000, Calls: 1111},
		{Run: "no_retries", Clients: 100, FailureRate: 0.5, Requests: 8, Succeeded: 4, Calls: 8},
	}
	for _, tc := range []struct {
		format    string
		byClients bool
		want      string
	}{
		{"csv", false, "failure_rate,policy,requests,succeeded,calls,replicates,seed\n0.1,no_retries,1000,900,1000,2,7\n0.1,4_tries,1000,1000,1111,2,7\n0.5,no_retries,8,4,8,2,7\n"},
		{"csv", true, "clients,failure_rate,policy,requests,succeeded,calls,replicates,seed\n100,0.1,no_retries,1000,900,1000,2,7\n100,0.1,4_tries,1000,1000,1111,2,7\n100,0.5,no_retries,8,4,8,2,7\n"},
		{"json", false, `{"title":"T","replicates":2,"seed":7,"rows":[` +
			`{"failure_rate":0.1,"policy":"no_retries","requests":1000,"succeeded":900,"calls":1000},` +
			`{"failure_rate":0.1,"policy":"4_tries","requests":1000,"succeeded":1000,"calls":1111},` +
			`{"failure_rate":0.5,"policy":"no_retries","requests":8,"succeeded":4,"calls":8}]}`},
		{"markdown", false, `**T**

| Failure rate | no_retries succeeded | no_retries calls a request | 4_tries succeeded | 4_tries calls a request |
|-------------:|---------------------:|---------------------------:|------------------:|------------------------:|
|          0.1 |              90.000% |                     1.0000 |          100.000% |                  1.1110 |
|          0.5 |              50.000% |                     1.0000 |                 - |                       - |
`},
	} {
		var b bytes.Buffer
		if err := lookup(t, TotalsDoc, tc.format).Runs(&b, TotalsReport{Title: "T", Rows: rows, ByClients: tc.byClients, Replicates: 2, Seed: 7}); err != nil {
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
	if _, err := Lookup(TotalsDoc, "xml"); err == nil || !strings.Contains(err.Error(), "xml") {
		t.Errorf("Lookup(TotalsDoc, xml) = %v; want an error naming it", err)
	}
}

// TestTotalsHTML: the page pivots the totals as the text table does, each
// figure followed by the 95% Student t interval over the replicates [lo,
// hi], worked out here by hand: replicate shares 0.9 and 0.8 have mean 0.85
// and standard error sqrt(0.005/2) = 0.05, t(0.975, 1 df) = 12.706205, so
// the half width is 0.635310, the interval [21.46898%, 148.53%], cut at 100%
// and rounded outwards to the column's 3 decimals: [21.468, 100.000]; calls
// 1.1 and 1.3 a request have the same standard error over 1, 0.1, so
// [-0.07062, 2.47062], cut at 0: [0.0000, 2.4707]. The data attributes are
// the json row's counts' ratio, exactly.
func TestTotalsHTML(t *testing.T) {
	rep := func(req, succ, calls int64) fleetdata.Replicate {
		var r fleetdata.Replicate
		r.Requests, r.Succeeded, r.Calls = req, succ, calls
		return r
	}
	cfg := func(name string, pfail float64) fleet.Config {
		c := fleet.Config{Name: name, Duration: 10 * time.Second, Load: fleet.Shape{Rate: 10}, Server: fleet.Server{PFail: pfail}}
		c.Client.Clients, c.Client.Timeout = 1, time.Second
		return c
	}
	res := []fleet.Result{
		fleetrun.Fleet().Result(cfg("no_retries", 0.1), []fleetdata.Replicate{rep(100, 90, 110), rep(100, 80, 130)}),
		fleetrun.Fleet().Result(cfg("3_tries", 0.1), []fleetdata.Replicate{rep(100, 100, 100), rep(100, 100, 100)}),
		fleetrun.Fleet().Result(cfg("no_retries", 0.5), []fleetdata.Replicate{rep(4, 2, 4), rep(4, 2, 4)}),
	}
	r := TotalsReport{Title: "retrysim fleet: test", Params: []string{"model: test"}, Results: res, PlotTitle: "test"}
	for _, x := range res {
		r.Rows = append(r.Rows, fleetrun.Fleet().Totals(x))
	}
	var page bytes.Buffer
	if err := lookup(t, TotalsDoc, "html").Runs(&page, r); err != nil {
		t.Fatal(err)
	}
	p := parsePage(t, page.Bytes())
	selfContained(t, p)
	type cell struct {
		row   int
		field string
		value float64
		text  string
	}
	want := []cell{
		{0, "succeeded/requests", 0.85, "85.000% [21.468, 100.000]"}, {1, "succeeded/requests", 1, "100.000%"},
		{2, "succeeded/requests", 0.5, "50.000%"},
		{0, "calls/requests", 1.2, "1.2000 [0.0000, 2.4707]"}, {1, "calls/requests", 1, "1.0000"}, {2, "calls/requests", 1, "1.0000"},
	}
	if len(p.cells) != len(want) {
		t.Fatalf("%d numeric cells; want %d", len(p.cells), len(want))
	}
	for i, c := range p.cells {
		if got := (cell{c.row, c.field, c.value, c.text}); got != want[i] {
			t.Errorf("cell %d = %+v; want %+v", i, got, want[i])
		}
	}
	if n := strings.Count(p.text, "How to read it."); n != 2 || !strings.Contains(p.text, "model: test") || p.elements["svg"] != 1 {
		t.Errorf("%d how to read it, %d svg; want 2 and 1, and the parameters, in %q", n, p.elements["svg"], p.text)
	}
	if !strings.Contains(p.text, "-") { // 3_tries ran at 0.1 only
		t.Error("no - for the policy that did not run at 0.5")
	}
}

// The text table and the page pivot every totals preset alike: each
// preset's runs come with a key's (failure rate, and client count when by
// clients) runs next to each other and the client count fixed otherwise,
// so the key of the page's pivot is the text table's run of rows.
func TestTotalsPresetsGroupTheirKeys(t *testing.T) {
	for _, p := range fleetpreset.Presets() {
		if !p.Totals {
			continue
		}
		rep := TotalsReport{ByClients: p.ByClients}
		for _, c := range p.Runs(p.Duration) {
			rep.Rows = append(rep.Rows, fleetdata.Totals{Run: c.Name, Clients: c.Client.Clients, FailureRate: c.Server.PFail})
		}
		runs := 0 // runs of rows of one failure rate and client count
		for i, r := range rep.Rows {
			if i == 0 || r.FailureRate != rep.Rows[i-1].FailureRate || r.Clients != rep.Rows[i-1].Clients {
				runs++
			}
		}
		if _, keys, _ := rep.pivot(); len(keys) != runs || runs == 0 {
			t.Errorf("%s: %d keys in the pivot, %d runs of rows of one key; want them equal", p.Name, len(keys), runs)
		}
	}
}
