package decl

import (
	"fmt"
	"reflect"

	"github.com/retrysim/retrysim/internal/pathtext"
)

// tables holds, by declaration type (a Setting[delivery.Config], a
// Param[fleet.Config]), the function that returns its package's table,
// which Register stores: the package declaring a configuration keeps its
// table unexported and imports this one, so this one cannot import it.
var tables = map[reflect.Type]any{}

// Register makes table the declarations of type T that Table returns; the
// package of the configuration T declares calls it from its init.
func Register[T any](table func() []T) { tables[reflect.TypeFor[T]()] = table }

// Table is the declarations of type T, in the order their package's table
// lists them. The result is a fresh slice.
func Table[T any]() []T {
	table, ok := tables[reflect.TypeFor[T]()].(func() []T)
	if !ok {
		panic(fmt.Sprintf("decl: no table of %v registered", reflect.TypeFor[T]()))
	}
	return table()
}

// unreads holds, by configuration type, the function that says why a run
// never reads each setting of a C it names, which RegisterUnread stores.
var unreads = map[reflect.Type]any{}

// RegisterUnread makes why the reasons UnreadWhy gives for a C; the package
// of C calls it from its init.
func RegisterUnread[C any](why func(c C) map[string]pathtext.Text) {
	unreads[reflect.TypeFor[C]()] = why
}

// UnreadWhy names the settings of c that a run never reads, given the
// others, by their paths, each with why, its settings named as Paths for a
// reader's words (fleet's Config.Unread, with each reason a string).
func UnreadWhy[C any](c C) map[string]pathtext.Text {
	why, ok := unreads[reflect.TypeFor[C]()].(func(C) map[string]pathtext.Text)
	if !ok {
		panic(fmt.Sprintf("decl: no unread settings registered for %v", reflect.TypeFor[C]()))
	}
	return why(c)
}
