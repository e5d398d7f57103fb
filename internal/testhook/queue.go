package testhook

// queue is the address of package delivery's settings table.
var queue any

// SetQueue records the address of package delivery's table, a
// *[]delivery.Setting (an any: this package cannot import the one it
// serves); delivery calls it once, as it starts.
func SetQueue(table any) { queue = table }

// Queue is the address SetQueue recorded, through which a test declares one
// more queue setting.
func Queue() any { return queue }

// steps is the address of package provider's table of a step's settings.
var steps any

// SetSteps records the address of package provider's table of a step's
// settings, a *[]provider.StepSetting; provider calls it once, as it
// starts.
func SetSteps(table any) { steps = table }

// Steps is the address SetSteps recorded, through which a test declares one
// more setting of a step.
func Steps() any { return steps }
