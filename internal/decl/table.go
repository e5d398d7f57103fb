package decl

import (
	"fmt"
	"reflect"

	"github.com/retrysim/retrysim/internal/pathtext"
)

// registry holds, by type, what Register stores under a declaration's type
// and RegisterUnread under a configuration's: the package of that type
// imports this one, so this one cannot import it.
var registry = map[reflect.Type]any{}

// registered is what was registered under type K, a V; missing, a panic
// whose format names K.
func registered[K, V any](format string) V {
	v, ok := registry[reflect.TypeFor[K]()].(V)
	if !ok {
		panic(fmt.Sprintf(format, reflect.TypeFor[K]()))
	}
	return v
}

// Register makes table the declarations of type T that Table returns; the
// package of the configuration T declares calls it from its init.
func Register[T any](table func() []T) { registry[reflect.TypeFor[T]()] = table }

// Table is the declarations of type T in their table's order, a fresh slice.
func Table[T any]() []T { return registered[T, func() []T]("decl: no table of %v registered")() }

// RegisterUnread makes why the reasons UnreadWhy gives for a C; the package
// of C calls it from its init.
func RegisterUnread[C any](why func(c C) map[string]pathtext.Text) {
	registry[reflect.TypeFor[C]()] = why
}

// UnreadWhy is why a run never reads each setting of c it names, by path.
func UnreadWhy[C any](c C) map[string]pathtext.Text {
	return registered[C, func(C) map[string]pathtext.Text]("decl: no unread settings registered for %v")(c)
}
