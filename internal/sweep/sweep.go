// Package sweep expands parameter lists and ranges into a grid of points; running the points is
// package sim's work and drawing them package render's.
package sweep

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retrysim/retrysim/internal/limits"
)

// Axis is one swept parameter and its values, in the order given.
type Axis struct {
	Name   string
	Values []float64
}

// Kind says what values an axis accepts.
type Kind int

const (
	// Probability values lie in [0, 1].
	Probability Kind = iota
	// Whole values are integers in [Min, Max].
	Whole
	// Duration values are written as durations (250ms, 24h), held in seconds, in [Min, Max].
	Duration
	// Number values are any numbers in [Min, Max].
	Number
)

// Spec constrains an axis's values.
type Spec struct {
	Kind     Kind
	Min, Max float64 // for Whole and Duration
}

// Forms is the accepted syntax, for error messages.
const Forms = "a value (0.01), a list (0.001,0.01,0.05) or a range start:stop:count (0:0.02:11)"

// MaxPoints bounds a grid's points, which keeps a sweep's memory under about 200 MB.
const MaxPoints = 10_000 // sweep -help and the README say 10,000

// MaxRows bounds a sweep's rows, points x strategies, held until written.
const MaxRows = 50_000 // sweep -help and the README say 50,000

// Parse reads a value, a comma-separated list, or an inclusive range
// start:stop:count of count evenly spaced values, and checks each value.
func Parse(s string, spec Spec) ([]float64, error) {
	s = strings.TrimSpace(s)
	if n := strings.Count(s, ",") + 1; n > MaxPoints { // before splitting
		return nil, fmt.Errorf("%d values is more than the %d allowed", n, MaxPoints)
	}
	var vals []float64
	if strings.Contains(s, ":") {
		parts := strings.Split(s, ":")
		if len(parts) != 3 {
			return nil, fmt.Errorf("%q is not %s", s, Forms)
		}
		start, err1 := spec.number(parts[0])
		stop, err2 := spec.number(parts[1])
		n, err3 := strconv.Atoi(strings.TrimSpace(parts[2]))
		if err1 != nil || err2 != nil || err3 != nil || math.IsNaN(start) || math.IsNaN(stop) {
			return nil, fmt.Errorf("%q is not %s", s, Forms)
		}
		if n < 1 || n > MaxPoints {
			return nil, fmt.Errorf("%q: the count must be from 1 to %d", s, MaxPoints)
		}
		if n == 1 && start != stop {
			return nil, fmt.Errorf("%q: a range of one value needs start = stop", s)
		}
		for i := range n {
			v := start
			if n > 1 {
				v = start + (stop-start)*float64(i)/float64(n-1)
			}
			// 12 significant digits: 0:0.05:6 gives 0.03, not 0.030000000000000006.
			v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
			vals = append(vals, v)
		}
	} else {
		for part := range strings.SplitSeq(s, ",") {
			v, err := spec.number(part)
			if err != nil {
				return nil, fmt.Errorf("%q is not %s", s, Forms)
			}
			vals = append(vals, v)
		}
	}
	for _, v := range vals {
		if err := spec.Check(v); err != nil {
			return nil, err
		}
	}
	return vals, nil
}

// number reads one value: a duration in seconds for Duration, else a number.
func (spec Spec) number(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if spec.Kind == Duration {
		d, err := time.ParseDuration(s)
		return d.Seconds(), err
	}
	return strconv.ParseFloat(s, 64)
}

// Check refuses a value the axis does not accept.
func (spec Spec) Check(v float64) error {
	switch spec.Kind {
	case Probability:
		return limits.Probability(v)
	case Whole:
		if v != math.Trunc(v) || v < spec.Min || v > spec.Max {
			return fmt.Errorf("%v is not a whole number from %v to %v", v, spec.Min, spec.Max)
		}
	case Duration:
		if math.IsNaN(v) || v < spec.Min || v > spec.Max {
			return fmt.Errorf("%gs is not a duration from %v to %v", v, time.Duration(spec.Min*1e9), time.Duration(spec.Max*1e9))
		}
	case Number:
		if math.IsNaN(v) || v < spec.Min || v > spec.Max {
			return fmt.Errorf("%v is not a number from %v to %v", v, spec.Min, spec.Max)
		}
	}
	return nil
}

// Point is one combination of axis values, in axis order.
type Point []float64

// Size is the number of points in the grid of axes, refused above MaxPoints, without listing them.
func Size(axes []Axis) (int64, error) {
	n := int64(1)
	for _, a := range axes {
		n *= int64(len(a.Values))
	}
	if n > MaxPoints {
		return n, fmt.Errorf("%d points is more than the %d a sweep allows", n, MaxPoints)
	}
	return n, nil
}

// Grid is every combination of the axes' values, the first axis varying slowest, refused as Size
// refuses it.
func Grid(axes []Axis) ([]Point, error) {
	n, err := Size(axes)
	if err != nil {
		return nil, err
	}
	lists := make([][]float64, len(axes))
	for i, a := range axes {
		lists[i] = a.Values
	}
	return product[Point](lists, n), nil
}

// product is every combination of lists' values, the first list varying slowest.
func product[P ~[]T, T any](lists [][]T, n int64) []P {
	points := []P{{}}
	for _, vals := range lists {
		next := make([]P, 0, n)
		for _, p := range points {
			for _, v := range vals {
				next = append(next, append(slices.Clone(p), v))
			}
		}
		points = next
	}
	return points
}

// Swept returns the indexes of the axes with more than one value.
func Swept(axes []Axis) []int {
	var out []int
	for i, a := range axes {
		if len(a.Values) > 1 {
			out = append(out, i)
		}
	}
	return out
}

// MaxSets bounds the settings a sweep varies by path.
const MaxSets = 8

// Set is one setting a sweep varies by its path, with its values as text.
type Set struct {
	Path   string
	Values []string
}

// ParseSet reads PATH=VALUES: a value, a list (numbers, durations, names, true or false) or a range
// start:stop:count of numbers or durations.
func ParseSet(arg string) (Set, error) {
	path, values, ok := strings.Cut(arg, "=")
	path = strings.TrimSpace(path)
	if !ok || path == "" {
		return Set{}, fmt.Errorf("%q is not PATH=VALUES", arg)
	}
	s := Set{Path: path}
	if strings.Contains(values, ":") {
		if xs, err := Parse(values, Spec{Kind: Number, Min: -math.MaxFloat64, Max: math.MaxFloat64}); err == nil {
			for _, x := range xs {
				s.Values = append(s.Values, strconv.FormatFloat(x, 'f', -1, 64))
			}
			return s, nil
		}
		xs, err := Parse(values, Spec{Kind: Duration, Max: math.Inf(1)})
		if err != nil {
			return Set{}, fmt.Errorf("%s: %q is not %s", path, values, TextForms)
		}
		for _, x := range xs {
			s.Values = append(s.Values, time.Duration(math.Round(x*1e9)).String())
		}
		return s, nil
	}
	if n := strings.Count(values, ",") + 1; n > MaxPoints {
		return Set{}, fmt.Errorf("%s: %d values is more than the %d allowed", path, n, MaxPoints)
	}
	for v := range strings.SplitSeq(values, ",") {
		if v = strings.TrimSpace(v); v == "" {
			return Set{}, fmt.Errorf("%s: %q is not %s", path, values, TextForms)
		}
		s.Values = append(s.Values, v)
	}
	return s, nil
}

// TextForms is ParseSet's syntax, for error messages.
const TextForms = "a value (10, 30s, aimd), a list (5,10,20) or a range start:stop:count (0:0.02:11, 1s:5s:5)"

// SetGrid is every combination of the sets' values, the first varying slowest, refusing more than
// MaxSets sets, a path given twice, or more than MaxPoints points.
func SetGrid(sets []Set) ([][]string, error) {
	if len(sets) > MaxSets {
		return nil, fmt.Errorf("%d settings are more than the %d a sweep varies", len(sets), MaxSets)
	}
	n := int64(1)
	for i, s := range sets {
		for _, t := range sets[:i] {
			if t.Path == s.Path {
				return nil, fmt.Errorf("%s: given twice", s.Path)
			}
		}
		if n *= int64(len(s.Values)); n > MaxPoints {
			return nil, fmt.Errorf("the grid has more than the %d points a sweep allows", MaxPoints)
		}
	}
	lists := make([][]string, len(sets))
	for i, s := range sets {
		lists[i] = s.Values
	}
	return product[[]string](lists, n), nil
}
