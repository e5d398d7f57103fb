package retrysim

import "github.com/retrysim/retrysim/strategy"

// RowIDs are the ids of the rows a run of strategies reports, in their
// order, as Report.Rows' IDs: what a requirement's ROW: names.
func RowIDs(strategies []strategy.Strategy) []string {
	ids, _ := rowNames(strategies)
	return ids
}
