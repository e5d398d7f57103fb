package decl

import (
	"github.com/retrysim/retrysim/internal/enum"
	"github.com/retrysim/retrysim/provider"
)

// A step's new setting: one declaration, at the end of the table.
func init() {
	stepSettings = append(stepSettings, inFile(named(stepSetting("p_error", func(st *provider.Step) *float64 { return &st.PError }), "p_error", enum.Probability,
		"`probability` that a call errs before doing anything"),
		StepKeyDoc{Default: "0", Example: "0.01", Doc: "probability that a call errs before doing anything"}))
}
