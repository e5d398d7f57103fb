package retrysim

import (
	"time"

	"github.com/retrysim/retrysim/delivery"
)

// AddQueueSettingForTest declares one more duration setting of the queue
// in settingTable, as a new field's one declaration would, and returns the
// function that takes it out again.
func AddQueueSettingForTest(name, usage string, where func(*delivery.Config) *time.Duration) (remove func()) {
	old := settingTable
	settingTable = append(old[:len(old):len(old)], setting{name, doc(queueField(durationSpec, where), usage)})
	return func() { settingTable = old }
}
