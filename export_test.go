package retrysim

import (
	"slices"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/testhook"
	"github.com/retrysim/retrysim/provider"
)

// AddQueueSettingForTest declares one more setting of the queue, s, in
// delivery's table, as a new field's one declaration would, derives
// settingTable again from it, and returns the function that takes it out.
func AddQueueSettingForTest(s delivery.Setting) (remove func()) {
	table := testhook.Queue().(*[]delivery.Setting)
	oldQueue, oldTable := *table, settingTable
	*table = append(slices.Clip(oldQueue), s)
	settingTable = append(stepSettings(provider.StepSettings()), queueSettings(*table)...)
	return func() { *table, settingTable = oldQueue, oldTable }
}

// AddStepSettingForTest declares one more setting of a step, s, in
// provider's table, as a new field's one declaration would, derives
// settingTable again from it, and returns the function that takes it out.
func AddStepSettingForTest(s provider.StepSetting) (remove func()) {
	table := testhook.Steps().(*[]provider.StepSetting)
	oldSteps, oldTable := *table, settingTable
	*table = append(slices.Clip(oldSteps), s)
	settingTable = append(stepSettings(*table), queueSettings(delivery.Settings())...)
	return func() { *table, settingTable = oldSteps, oldTable }
}
