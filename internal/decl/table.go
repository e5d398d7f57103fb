package decl

import (
	"fmt"
	"reflect"

	"github.com/retrysim/retrysim/internal/pathtext"
)

// tables holds, by declaration type, the function returning its package's
// table: that package imports this one, so this one cannot import it.
var tables = map[reflect.Type]any{}

// Register makes table the declarations of type T that Table returns; the
// package of the configuration T declares calls it from its init.
func Register[T any](table func() []T) { tables[reflect.TypeFor[T]()] = table }

// Table is the declarations of type T in their table's order, a fresh slice.
func Table[T any]() []T {
	table, ok := tables[reflect.TypeFor[T]()].(func() []T)
	if !ok {
		panic(fmt.Sprintf("decl: no table of %v registered", reflect.TypeFor[T]()))
	}
	return table()
}

// unreads holds, by configuration type, what RegisterUnread stores.
var unreads = map[reflect.Type]any{}

// RegisterUnread makes why the reasons UnreadWhy gives for a C; the package
// of C calls it from its init.
func RegisterUnread[C any](why func(c C) map[string]pathtext.Text) {
	unreads[reflect.TypeFor[C]()] = why
}

// UnreadWhy is why a run never reads each setting of c it names, by path.
func UnreadWhy[C any](c C) map[string]pathtext.Text {
	why, ok := unreads[reflect.TypeFor[C]()].(func(C) map[string]pathtext.Text)
	if !ok {
		panic(fmt.Sprintf("decl: no unread settings registered for %v", reflect.TypeFor[C]()))
	}
	return why(c)
}
