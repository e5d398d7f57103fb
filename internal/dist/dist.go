// Package dist is the few distribution functions retrysim's intervals use, computed as
// gonum's stat/distuv does through gonum's mathext, without distuv's imports.
package dist

import (
	"math"

	"gonum.org/v1/gonum/mathext"
)

// NormalCDF is the probability that a standard normal is at most x.
func NormalCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// NormalSurvival is the probability that a standard normal is above x.
func NormalSurvival(x float64) float64 { return 0.5 * (1 - math.Erf(x/math.Sqrt2)) }

// NormalQuantile is the standard normal's p quantile, p in [0, 1].
func NormalQuantile(p float64) float64 { return mathext.NormalQuantile(p) }

// ChiSquaredQuantile is the p quantile of the chi-square distribution with k degrees.
func ChiSquaredQuantile(k, p float64) float64 { return mathext.GammaIncRegInv(0.5*k, p) * 2 }

// StudentTQuantile is the p quantile of Student's t with nu degrees of freedom.
func StudentTQuantile(nu, p float64) float64 {
	switch {
	case p == 0.5:
		return 0
	case p > 0.5:
		t := mathext.InvRegIncBeta(nu/2, 0.5, 2*(1-p))
		return math.Sqrt(nu * (1 - t) / t)
	default:
		t := mathext.InvRegIncBeta(nu/2, 0.5, 2*p)
		return -math.Sqrt(nu * (1 - t) / t)
	}
}
