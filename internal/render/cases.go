package render

import (
	"io"

	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/stats"
)

// writeCasesTable is a preset's cases for people, as a table or markdown.
func writeCasesTable(w io.Writer, c stats.Cases, st tableStyle) error {
	t := newTable(w, st, []alignment{alignLeft, alignLeft, alignRight, alignRight, alignRight, alignLeft}, 1)
	t.prose = []int{5} // what it means
	t.Header(casesHeader)
	for i := range c.Rows { // by index: a CaseRow's counters are 89 KB
		r := &c.Rows[i]
		t.Append([]string{r.Case, r.Store, perJob.text(chargesPerJob(r)), human.Group(r.LostWork),
			perJob.text(float64(r.Deliveries) / float64(r.Jobs)), r.Meaning})
	}
	return writeTitled(w, st, c.Title, t, "")
}

// casesHeader heads a preset's cases in every format for people.
var casesHeader = []string{"Case", "Store", "Charges per job", "Lost work", "Deliveries per job", "What it means"}

// casesFields flattens a preset's cases for csv and json.
func casesFields(c stats.Cases) [][]field {
	var all [][]field
	for i := range c.Rows {
		r := &c.Rows[i]
		all = append(all, []field{
			{"case", r.Case}, {"store", r.Store}, {"jobs", r.Jobs}, {"charges", r.SideEffects},
			{"charges_per_job", chargesPerJob(r)}, {"lost_work", r.LostWork},
			{"deliveries", r.Deliveries}, {"failed", r.Failed}, {"meaning", r.Meaning},
		})
	}
	return all
}

// chargesPerJob is the mean side effects of r's jobs (the check's job has one step).
func chargesPerJob(r *stats.CaseRow) float64 { return float64(r.SideEffects) / float64(r.Jobs) }
