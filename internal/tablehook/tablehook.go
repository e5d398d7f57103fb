// Package tablehook holds the address of a model's settings table, so that
// a test in another package can declare one more setting, as a new field's
// one declaration would, and see every reader of the table take it.
package tablehook

// queue is the address of package delivery's table.
var queue any

// SetQueue records the address of package delivery's table, a
// *[]delivery.Setting (an any: this package cannot import the one it
// serves); delivery calls it once, as it starts.
func SetQueue(table any) { queue = table }

// Queue is the address SetQueue recorded.
func Queue() any { return queue }
