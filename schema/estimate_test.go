package schema_test

import (
	"math"
	"testing"

	"github.com/retrysim/retrysim/internal/enum"
	"github.com/retrysim/retrysim/internal/estimate"
	"github.com/retrysim/retrysim/schema"
)

// Every interval method has a name that reads back as itself, and the value
// after the last is refused: the methods are exactly these.
func TestMethodNames(t *testing.T) {
	want := []string{"none", "wilson", "garwood", "compound-poisson", "normal", "student-t", "exact", "newcombe", "normal-difference"}
	for i, n := range want {
		var m schema.Method
		if err := m.UnmarshalText([]byte(n)); err != nil || m != schema.Method(i) || m.String() != n {
			t.Errorf("%q reads as %v (%v); want %d", n, m, err, i)
		}
	}
	if _, err := schema.Method(len(want)).MarshalText(); err == nil {
		t.Error("MarshalText of a method that is none: no error")
	}
}

// Point has NaN bounds and no level; Count is the observations a share of
// N counts, rounded, and 0 of none.
func TestEstimatePointAndCount(t *testing.T) {
	p := estimate.Point(2.5, 7)
	if p.Value != 2.5 || !math.IsNaN(p.Lo) || !math.IsNaN(p.Hi) || p.N != 7 || p.Level != 0 || p.Method != estimate.NoInterval {
		t.Errorf("Point(2.5, 7) = %+v", p)
	}
	for _, tc := range []struct {
		e    schema.Estimate
		want int64
	}{
		{schema.Estimate{Value: 1.0 / 3, N: 3}, 1},
		{schema.Estimate{Value: 250.0 / 1000, N: 1000}, 250},
		{schema.Estimate{Value: 0.7, N: 10}, 7}, // 0.7 x 10 is 7.000000000000001
		{estimate.Point(math.NaN(), 0), 0},
	} {
		if got := tc.e.Count(); got != tc.want {
			t.Errorf("%+v.Count() = %d; want %d", tc.e, got, tc.want)
		}
	}
}

// The key modes are the scenario files' names, in order.
func TestKeyModeNames(t *testing.T) {
	for i, n := range []string{"none", "fresh", "same"} {
		k, err := enum.Parse[schema.KeyMode](n)
		if err != nil || k != schema.KeyMode(i) || k.String() != n {
			t.Errorf("enum.Parse[schema.KeyMode](%q) = %v, %v; want %d", n, k, err, i)
		}
	}
	if err := enum.Check(schema.KeyMode(3)); err == nil || err.Error() != "3 is not a key mode (want one of none, fresh, same)" {
		t.Errorf("Check(3) = %v", err)
	}
}
