package render

import (
	"io"
	"slices"
	"strconv"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetdata"
)

// TotalsReport is what a totals preset prints: a row a run, counts summed over replicates.
type TotalsReport struct {
	Title string
	Rows  []fleetdata.Totals
	// ByClients says the runs vary the client count too.
	ByClients bool
	// Params are the page's lines; Results, if given, Rows' runs for intervals and plot.
	Params    []string
	Results   []fleet.Result
	PlotTitle string
	// Configs are Rows' runs, whose settings json and csv echo.
	Configs    []fleet.Config
	Replicates int
	Seed       uint64
	Scenario   string
}

// totalsFields flattens totals for csv and json, counts summed over replicates.
func totalsFields(rows []fleetdata.Totals, byClients bool) [][]field {
	fields := make([][]field, len(rows))
	for i, r := range rows {
		var f []field
		if byClients {
			f = append(f, field{"clients", int64(r.Clients)})
		}
		fields[i] = append(f, field{"failure_rate", r.FailureRate}, field{"policy", r.Run},
			field{"requests", r.Requests}, field{"succeeded", r.Succeeded}, field{"calls", r.Calls})
	}
	return fields
}

// csv writes a row a run, its settings after its figures.
func (t TotalsReport) csv(w io.Writer) error {
	return writeFields(w, withSettingColumns(totalsFields(t.Rows, t.ByClients), t.Configs, t.Replicates, t.Seed, t.Scenario))
}

// json writes the title, what ran the runs, and a row a run with its settings.
func (t TotalsReport) json(w io.Writer) error {
	rows, err := withSettingsObject(totalsFields(t.Rows, t.ByClients), t.Configs)
	if err != nil {
		return err
	}
	return kindDoc{Title: t.Title, Replicates: t.Replicates, Seed: t.Seed, Scenario: t.Scenario}.write(w, rows)
}

// The words after a policy's name in the totals' headers.
const (
	totalsSucceeded     = "succeeded"
	totalsCallsARequest = "calls a request"
)

// table pivots the totals: a row a failure rate (and client count), two columns a policy.
func (t TotalsReport) table(w io.Writer, st tableStyle) error {
	rows, byClients := t.Rows, t.ByClients
	var policies []string
	for _, r := range rows {
		if !slices.Contains(policies, r.Run) {
			policies = append(policies, r.Run)
		}
	}
	header := []string{"Failure rate"}
	if byClients {
		header = []string{"Clients", "Failure rate"}
	}
	lead := len(header)
	for _, p := range policies {
		header = append(header, p+" "+totalsSucceeded, p+" "+totalsCallsARequest)
	}
	tb := newTable(w, st, numberColumns(len(header), 0), lead)
	tb.Header(header)
	var cells []string
	flush := func() {
		if cells != nil {
			tb.Append(cells)
		}
	}
	for i, r := range rows {
		if i == 0 || r.FailureRate != rows[i-1].FailureRate || r.Clients != rows[i-1].Clients {
			flush()
			cells = make([]string, len(header))
			for j := range cells {
				cells[j] = "-"
			}
			if byClients {
				cells[0] = strconv.Itoa(r.Clients)
			}
			cells[lead-1] = strconv.FormatFloat(r.FailureRate, 'g', -1, 64)
		}
		j := lead + 2*slices.Index(policies, r.Run)
		if r.Requests > 0 {
			cells[j] = jobShare.text(float64(r.Succeeded) / float64(r.Requests))
			cells[j+1] = totalsCalls.text(float64(r.Calls) / float64(r.Requests))
		}
	}
	flush()
	return writeTitled(w, st, t.Title, tb, "")
}
