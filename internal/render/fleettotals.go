package render

import (
	"io"
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

// totalsKey is a row of the totals' pivots: a client count (0 unless by clients) and a failure rate.
type totalsKey struct {
	clients int
	rate    float64
}

// lead are the key's cells for people: its client count when by clients, and its failure rate.
func (k totalsKey) lead(byClients bool) []string {
	rate := strconv.FormatFloat(k.rate, 'g', -1, 64)
	if byClients {
		return []string{strconv.Itoa(k.clients), rate}
	}
	return []string{rate}
}

// pivot are the policies and the keys in the order t's rows first name them, and each key's row index by policy.
func (t TotalsReport) pivot() (policies []string, keys []totalsKey, at map[totalsKey]map[string]int) {
	at = map[totalsKey]map[string]int{}
	for i, r := range t.Rows {
		policies = appendNew(policies, r.Run)
		k := totalsKey{r.Clients, r.FailureRate}
		if !t.ByClients {
			k.clients = 0
		}
		if at[k] == nil {
			keys = append(keys, k)
			at[k] = map[string]int{}
		}
		at[k][r.Run] = i
	}
	return policies, keys, at
}

// table pivots the totals: a row a failure rate (and client count), two columns a policy.
func (t TotalsReport) table(w io.Writer, st tableStyle) error {
	policies, keys, at := t.pivot()
	header := []string{"Failure rate"}
	if t.ByClients {
		header = []string{"Clients", "Failure rate"}
	}
	lead := len(header)
	for _, p := range policies {
		header = append(header, p+" "+totalsSucceeded, p+" "+totalsCallsARequest)
	}
	tb := newTable(w, st, numberColumns(len(header), 0), lead)
	tb.Header(header)
	for _, k := range keys {
		cells := k.lead(t.ByClients)
		for _, p := range policies {
			i, ok := at[k][p]
			if !ok || t.Rows[i].Requests == 0 {
				cells = append(cells, "-", "-")
				continue
			}
			r := t.Rows[i]
			cells = append(cells, jobShare.text(float64(r.Succeeded)/float64(r.Requests)), totalsCalls.text(float64(r.Calls)/float64(r.Requests)))
		}
		tb.Append(cells)
	}
	return writeTitled(w, st, t.Title, tb, "")
}
