package render

import (
	"math"
	"strings"

	"github.com/retrysim/retrysim/schema"
)

// Figures is a row of a kind by id, its figures by their csv and json keys.
type Figures struct {
	ID string
	// Get is the figure keyed key with its 95% interval (key_lo, key_hi;
	// a bound carries its figure's), NaN where it has none or is null.
	Get func(key string) schema.Estimate
}

// FigureKeys are the numeric keys the kind's rows write in csv and json, in order.
func (t Table[R]) FigureKeys() []string {
	var keys []string
	var zero R
	for _, f := range t.cs.fields(zero) {
		if _, ok := f.value.(string); !ok {
			keys = append(keys, f.key)
		}
	}
	return keys
}

// Figures are rows as Figures, each named by its first column.
func (t Table[R]) Figures(rows []R) []Figures {
	out := make([]Figures, len(rows))
	for i, r := range rows {
		byKey := map[string]float64{}
		for _, f := range t.cs.fields(r) {
			byKey[f.key] = figureValue(f.value)
		}
		out[i] = Figures{ID: t.cs[0].text(r), Get: func(key string) schema.Estimate {
			e := schema.Estimate{Value: byKey[key], Lo: math.NaN(), Hi: math.NaN()}
			base := key
			for _, end := range []string{"_lo", "_hi"} { // a bound is judged on its figure's interval
				if b, ok := strings.CutSuffix(key, end); ok && withInterval(byKey, b) {
					base = b
				}
			}
			if withInterval(byKey, base) {
				e.Lo, e.Hi, e.Level = byKey[base+"_lo"], byKey[base+"_hi"], 0.95
			}
			return e
		}}
	}
	return out
}

// withInterval reports whether the figure keyed key has its 95% interval.
func withInterval(byKey map[string]float64, key string) bool {
	_, lo := byKey[key+"_lo"]
	_, hi := byKey[key+"_hi"]
	_, v := byKey[key]
	return v && lo && hi
}

// figureValue is a field's value as a number, NaN for null.
func figureValue(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case int:
		return float64(x)
	case float64:
		return x
	}
	return math.NaN()
}

// mapTable is a fleet map's cells as figures, named by policy.
var mapTable = Table[mapRow]{cs: mapColumns}

// MapFigureKeys are the keys of a fleet map's figures.
func MapFigureKeys() []string { return mapTable.FigureKeys() }

// MapFigures are a fleet map's cells as figures, named by policy.
func (r MapReport) MapFigures() []Figures { return mapTable.Figures(r.mapRows()) }
