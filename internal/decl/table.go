package decl

import (
	"fmt"
	"reflect"
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
