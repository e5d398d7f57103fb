package stats

// CaseRow is one case of a preset: a named configuration and what it did.
type CaseRow struct {
	Case    string
	Store   string
	Meaning string
	Counters
}

// ChargesPerJob is the mean side effects a job (the check's job has one step).
func (r *CaseRow) ChargesPerJob() float64 { return float64(r.SideEffects) / float64(r.Jobs) }

// Cases is a preset's report.
type Cases struct {
	Title string
	Rows  []CaseRow
}
