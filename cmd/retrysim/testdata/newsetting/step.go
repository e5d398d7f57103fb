package decl

import (
	"github.com/retrysim/retrysim/internal/enum"
	"github.com/retrysim/retrysim/provider"
)

// A step's new setting: one declaration, at the end of the table.
func init() {
	stepSettings = append(stepSettings, stepSetting(func(st *provider.Step) *float64 { return &st.PError }, StepSetting{ShardKey: "p_error", Echo: "p_error",
		Setting: Setting[provider.Step]{Name: "p_error", Kind: enum.Probability, Doc: "`probability` that a call errs before doing anything"},
		File:    StepKeyDoc{Default: "0", Example: "0.01", Doc: "probability that a call errs before doing anything"}}))
}
