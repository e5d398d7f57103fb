package stats

// CaseRow is one case of a preset: a named configuration and what it did.
type CaseRow struct {
	Case    string
	Store   string
	Meaning string
	Counters
}

// Cases is a preset's report.
type Cases struct {
	Title string
	Rows  []CaseRow
}
