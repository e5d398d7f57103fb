package fleetdata

import (
	"reflect"

	"github.com/retrysim/retrysim/schema"
)

// Figure is a figure of a row or point R by the key json and csv write it under: the one
// declaration of what the key holds.
type Figure[R, V any] struct {
	Key string
	Of  func(*R) V
}

// Lookup is the figure of figs keyed key.
func Lookup[R, V any](figs []Figure[R, V], key string) (Figure[R, V], bool) {
	for _, f := range figs {
		if f.Key == key {
			return f, true
		}
	}
	return Figure[R, V]{}, false
}

// Keys are figs' keys, in order.
func Keys[R, V any](figs []Figure[R, V]) []string {
	keys := make([]string, len(figs))
	for i, f := range figs {
		keys[i] = f.Key
	}
	return keys
}

// tagged are the fields of R tagged figure, of type V, in field order, each keyed by its
// tag: a fresh slice each call.
func tagged[R, V any]() []Figure[R, V] {
	t := reflect.TypeFor[R]()
	var figs []Figure[R, V]
	for i := range t.NumField() {
		if key, ok := t.Field(i).Tag.Lookup("figure"); ok {
			figs = append(figs, Figure[R, V]{key, func(r *R) V { return *reflect.ValueOf(r).Elem().Field(i).Addr().Interface().(*V) }})
		}
	}
	return figs
}

// RunFigures are a fleet run's row's figures, a fresh slice each call (as each below).
func RunFigures() []Figure[RunRow, schema.Estimate] { return tagged[RunRow, schema.Estimate]() }

// GraphFigures are a graph run's rows' figures.
func GraphFigures() []Figure[GraphRow, schema.Estimate] { return tagged[GraphRow, schema.Estimate]() }

// WorkersFigures are a worker fleet's row's figures.
func WorkersFigures() []Figure[WorkersRow, schema.Estimate] {
	return tagged[WorkersRow, schema.Estimate]()
}

// PointFigures are a fleet run's second's figures, in csv and json's order.
func PointFigures() []Figure[Point, float64] { return tagged[Point, float64]() }

// GraphPointFigures are a graph's service's second's figures: calls, then PointFigures.
func GraphPointFigures() []Figure[GraphPoint, float64] {
	figs := []Figure[GraphPoint, float64]{{"calls", func(p *GraphPoint) float64 { return p.Calls }}}
	for _, f := range PointFigures() {
		figs = append(figs, Figure[GraphPoint, float64]{f.Key, func(p *GraphPoint) float64 { return f.Of(&p.Point) }})
	}
	return figs
}

// WorkersPointFigures are a worker fleet's second's figures, before each dependency's.
func WorkersPointFigures() []Figure[WorkersPoint, float64] { return tagged[WorkersPoint, float64]() }
