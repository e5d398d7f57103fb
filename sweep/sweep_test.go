package sweep

import (
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	prob := Spec{Kind: Probability}
	tests := []struct {
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
	for _, tt := range tests {
		got, err := Parse(tt.in, tt.spec)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("Parse(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	prob := Spec{Kind: Probability}
	tests := []struct {
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
	}
	for _, tt := range tests {
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
