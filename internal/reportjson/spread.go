package reportjson

import (
	"math"
	"slices"

	"github.com/retrysim/retrysim/internal/dist"
	"github.com/retrysim/retrysim/internal/estimate"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/schema"
	"gonum.org/v1/gonum/floats"
)

// Spread is the mean of one metric over N replicates with its 95% Student t
// interval (cut at 0; none with one replicate), and the sample standard deviation.
type Spread struct {
	schema.Estimate
	SD float64
}

// SpreadOf is m's Spread over the replicates' values.
func SpreadOf(m stats.Metric, reps []stats.Values) Spread {
	i := slices.IndexFunc(stats.Metrics(), func(x stats.Metric) bool { return x.Name == m.Name })
	xs := make([]float64, len(reps))
	for r, v := range reps {
		xs[r] = v[i]
	}
	mu, sd := meanSD(xs)
	n := int64(len(xs))
	if n < 2 {
		return Spread{Estimate: schema.Estimate{Value: mu, Lo: mu, Hi: mu, N: n}}
	}
	half := dist.StudentTQuantile(float64(n-1), 0.975) * sd / math.Sqrt(float64(n))
	return Spread{Estimate: schema.Estimate{Value: mu, Lo: max(0, mu-half), Hi: mu + half, N: n, Level: stats.Confidence, Method: estimate.StudentT}, SD: sd}
}

// meanSD is the mean of xs and their sample standard deviation, in gonum's
// stat.MeanStdDev's order of operations, so that the figures are its own.
func meanSD(xs []float64) (mean, sd float64) {
	n := float64(len(xs))
	mean = floats.Sum(xs) / n
	var ss, compensation float64
	for _, x := range xs {
		d := x - mean
		ss += d * d
		compensation += d
	}
	return mean, math.Sqrt((ss - compensation*compensation/n) / (n - 1))
}
