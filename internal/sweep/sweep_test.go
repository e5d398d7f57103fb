package sweep

import (
	"slices"
	"strings"
	"testing"
)

var prob = Spec{Kind: Probability}

// parsed are inputs Parse accepts, with what it gives; FuzzParse starts from them.
var parsed = []struct {
	in   string
	spec Spec
	want []float64
}{
	{"0.01", prob, []float64{0.01}},
	{"0.001, 0.005,0.01", prob, []float64{0.001, 0.005, 0.01}},
	{"0:0.02:5", prob, []float64{0, 0.005, 0.01, 0.015, 0.02}},
	{"0.5:0.5:1", prob, []float64{0.5}},
	{"1:0:3", prob, []float64{1, 0.5, 0}},
	{"1:5:5", Spec{Kind: Whole, Min: 1, Max: 1000}, []float64{1, 2, 3, 4, 5}},
	{"100000,1e6", Spec{Kind: Whole, Min: 1, Max: 1e12}, []float64{1e5, 1e6}},
}

func TestParse(t *testing.T) {
	for _, tt := range parsed {
		got, err := Parse(tt.in, tt.spec)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("Parse(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

// refused are inputs Parse refuses, with a part of its error; FuzzParse
// starts from them too.
var refused = []struct {
	in   string
	spec Spec
	want string
}{
	{"0:1", prob, `"0:1" is not a value (0.01), a list (0.001,0.01,0.05) or a range start:stop:count (0:0.02:11)`},
	{"a,b", prob, `"a,b" is not a value`},
	{"", prob, `"" is not a value`},
	{"0:1:0", prob, `"0:1:0": the count must be from 1 to 10000`},
	{"0:1:x", prob, `"0:1:x" is not a value`},
	{"0:1:1", prob, "a range of one value needs start = stop"},
	{"0.5,1.5", prob, "1.5 is not a probability in [0, 1]"},
	{"0:2:3", prob, "2 is not a probability in [0, 1]"},
	{"NaN", prob, "NaN is not a probability"},
	{"1:2:3", Spec{Kind: Whole, Min: 1, Max: 1000}, "1.5 is not a whole number from 1 to 1000"},
	{"0", Spec{Kind: Whole, Min: 1, Max: 1000}, "0 is not a whole number from 1 to 1000"},
	{strings.Repeat("0,", 10_000) + "0", prob, "10001 values is more than the 10000 allowed"},
}

func TestParseRefuses(t *testing.T) {
	for _, tt := range refused {
		_, err := Parse(tt.in, tt.spec)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) error = %v; want it to contain %q", tt.in, err, tt.want)
		}
	}
}

func TestGrid(t *testing.T) {
	axes := []Axis{{"a", []float64{1, 2}}, {"b", []float64{7}}, {"c", []float64{0, 1, 2}}}
	got, err := Grid(axes)
	if err != nil || len(got) != 6 {
		t.Fatalf("len(Grid) = %d; want 6", len(got))
	}
	if !slices.Equal(got[0], Point{1, 7, 0}) || !slices.Equal(got[2], Point{1, 7, 2}) || !slices.Equal(got[3], Point{2, 7, 0}) {
		t.Errorf("Grid = %v; want the first axis slowest", got)
	}
	if s := Swept(axes); !slices.Equal(s, []int{0, 2}) {
		t.Errorf("Swept = %v; want [0 2]", s)
	}
}

// Grids past MaxPoints are refused before any point is listed; the largest
// accepted grid is listed whole.
func TestGridSize(t *testing.T) {
	vals := func(n int) []float64 { return make([]float64, n) }
	big := []Axis{{"a", vals(10_000)}, {"b", vals(10_000)}, {"c", vals(1000)}, {"d", vals(10_000)}}
	if n, err := Size(big); n != 1e15 || err == nil || err.Error() != "1000000000000000 points is more than the 10000 a sweep allows" {
		t.Errorf("Size(10^4 x 10^4 x 10^3 x 10^4) = %d, %v; want 10^15 and an error", n, err)
	}
	if _, err := Grid(big); err == nil {
		t.Error("Grid of 10^15 points: no error")
	}
	if got, err := Grid([]Axis{{"a", vals(100)}, {"b", vals(100)}}); err != nil || len(got) != MaxPoints {
		t.Errorf("Grid(100 x 100) = %d points, %v; want %d", len(got), err, MaxPoints)
	}
}

// kinds are the specs FuzzParse picks from.
var kinds = []Spec{prob, {Kind: Whole, Min: 1, Max: 1000}, {Kind: Whole, Min: 1, Max: 1e12}}

// Parse never panics, and what it accepts is what its spec allows: one to
// MaxPoints values, each one Spec.check takes, a grid of them sized by Size.
func FuzzParse(f *testing.F) {
	for _, tt := range parsed {
		f.Add(tt.in, uint8(tt.spec.Kind))
	}
	for _, tt := range refused {
		if len(tt.in) < 1000 {
			f.Add(tt.in, uint8(tt.spec.Kind))
		}
	}
	f.Fuzz(func(t *testing.T, s string, kind uint8) {
		spec := kinds[int(kind)%len(kinds)]
		vals, err := Parse(s, spec)
		if err != nil {
			if vals != nil {
				t.Errorf("Parse(%q) = %v with error %v", s, vals, err)
			}
			return
		}
		if len(vals) < 1 || len(vals) > MaxPoints {
			t.Fatalf("Parse(%q) gave %d values", s, len(vals))
		}
		for _, v := range vals {
			if err := spec.Check(v); err != nil {
				t.Fatalf("Parse(%q) accepted %v: %v", s, v, err)
			}
		}
		axes := []Axis{{"a", vals}, {"b", vals[:min(len(vals), 3)]}}
		n, err := Size(axes)
		if want := int64(len(vals) * min(len(vals), 3)); n != want {
			t.Fatalf("Size = %d; want %d", n, want)
		}
		if err == nil {
			if g, err := Grid(axes); err != nil || int64(len(g)) != n {
				t.Fatalf("Grid = %d points, %v; want %d", len(g), err, n)
			}
		}
	})
}

// ParseSet reads a list of any values and a range of numbers or durations;
// SetGrid is their product, the first slowest, refusing a path given twice
// and more than MaxSets sets.
func TestParseSetAndSetGrid(t *testing.T) {
	for _, tc := range []struct {
		arg  string
		want []string
	}{
		{"graph.services[workers].server.capacity=5,10,20", []string{"5", "10", "20"}},
		{"client.timeout=1s:3s:3", []string{"1s", "2s", "3s"}},
		{"p=0:0.5:3", []string{"0", "0.25", "0.5"}},
		{"client.policy.kind= aimd , none", []string{"aimd", "none"}},
	} {
		s, err := ParseSet(tc.arg)
		if err != nil || !slices.Equal(s.Values, tc.want) {
			t.Errorf("ParseSet(%q) = %v, %v; want %v", tc.arg, s.Values, err, tc.want)
		}
	}
	for _, bad := range []string{"capacity", "=5", "capacity=5,,6", "t=1s:x:3", "p=inf:inf:1", "p=-inf:0:2"} {
		if _, err := ParseSet(bad); err == nil {
			t.Errorf("ParseSet(%q) refused nothing", bad)
		}
	}
	g, err := SetGrid([]Set{{"a", []string{"1", "2"}}, {"b", []string{"x", "y", "z"}}})
	if err != nil || len(g) != 6 || !slices.Equal(g[1], []string{"1", "y"}) || !slices.Equal(g[3], []string{"2", "x"}) {
		t.Errorf("SetGrid = %v, %v", g, err)
	}
	if _, err := SetGrid([]Set{{"a", []string{"1"}}, {"a", []string{"2"}}}); err == nil {
		t.Error("SetGrid took a path twice")
	}
	if _, err := SetGrid(make([]Set, MaxSets+1)); err == nil {
		t.Error("SetGrid took more than MaxSets sets")
	}
}
