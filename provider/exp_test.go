package provider

import (
	"math"
	"math/rand/v2"
	"testing"
)

// exp agrees with math.Exp to 3 ulp over the range a latency can reach, at
// the table's boundaries and at random points.
func TestExpMatchesMathExp(t *testing.T) {
	xs := []float64{0, 1, -1, math.Ln2, -math.Ln2, 1e-300, -1e-300, 699, -699, math.Ln2 / expN / 2, -math.Ln2 / expN / 2}
	for k := -300; k <= 300; k++ {
		xs = append(xs, float64(k)*math.Ln2/expN, math.Nextafter(float64(k)*math.Ln2/expN, 1))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1_000_000 {
		xs = append(xs, (r.Float64()*2-1)*50, (r.Float64()*2-1)*699)
	}
	var worst float64
	for _, x := range xs {
		got, want := exp(x), math.Exp(x)
		ulps := math.Abs(got-want) / (math.Nextafter(want, math.Inf(1)) - want)
		if ulps > 3 {
			t.Fatalf("exp(%v) = %v; math.Exp gives %v (%.1f ulp apart)", x, got, want, ulps)
		}
		worst = max(worst, ulps)
	}
	if exp(0) != 1 {
		t.Errorf("exp(0) = %v, want exactly 1", exp(0))
	}
	t.Logf("largest difference: %.2f ulp", worst)
}

// BenchmarkExp compares exp with math.Exp over independent arguments, as a
// job's latencies are.
func BenchmarkExp(b *testing.B) {
	xs := make([]float64, 1024)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range xs {
		xs[i] = r.NormFloat64()
	}
	for _, f := range []struct {
		name string
		exp  func(float64) float64
	}{{"table", exp}, {"math", math.Exp}} {
		b.Run(f.name, func(b *testing.B) {
			var sum float64
			for b.Loop() {
				for _, x := range xs {
					sum += f.exp(x)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(xs)), "ns/exp")
		})
	}
}
