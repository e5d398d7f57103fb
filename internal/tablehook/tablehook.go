// Package tablehook holds the address of a model's settings table, so that
// a test in another package can declare one more setting, as a new field's
// one declaration would, and see every reader of the table take it.
package tablehook

// Queue is the address of package delivery's table, a *[]delivery.Setting
// (an any: this package cannot import the one it serves).
var Queue any
