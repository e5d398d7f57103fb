package stats

import (
	"math"
	"math/big"

	"github.com/retrysim/retrysim/internal/dist"
	"github.com/retrysim/retrysim/internal/estimate"
	"github.com/retrysim/retrysim/schema"
)

// Confidence is the level of every interval retrysim prints.
const Confidence = 0.95

// z is the two-sided normal quantile for Confidence (1.96).
var z = dist.NormalQuantile(1 - (1-Confidence)/2)

// Wilson is the proportion x of n with its Wilson score interval, which stays inside [0, 1] and
// keeps its coverage near 0 and 1.
func Wilson(x, n int64) schema.Estimate {
	p, nf := float64(x)/float64(n), float64(n)
	z2 := z * z
	centre := (p + z2/(2*nf)) / (1 + z2/nf)
	half := z / (1 + z2/nf) * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	ci := schema.Estimate{Value: p, Lo: math.Max(0, centre-half), Hi: math.Min(1, centre+half), N: n, Level: Confidence, Method: estimate.Wilson}
	if x == 0 { // exactly, not 1e-16 of rounding
		ci.Lo = 0
	}
	if x == n {
		ci.Hi = 1
	}
	return ci
}

// garwood is Garwood's interval for a Poisson count x that need not be whole.
func garwood(x float64) (lo, hi float64) {
	alpha := 1 - Confidence
	if x > 0 {
		lo = dist.ChiSquaredQuantile(2*x, alpha/2) / 2
	}
	hi = dist.ChiSquaredQuantile(2*x+2, 1-alpha/2) / 2
	return lo, hi
}

// rareShare is the share of jobs below which a count is a rare count (Garwood) rather than a
// proportion (Wilson).
const rareShare = 0.1

// countOfJobs is the count x of n jobs with Garwood's interval when rare (cut at n), Wilson's
// scaled to n otherwise.
func countOfJobs(x, n int64) schema.Estimate {
	nf := float64(n)
	if float64(x) <= rareShare*nf {
		lo, hi := garwood(float64(x)) // exact, never undercovering small counts
		return schema.Estimate{Value: float64(x), Lo: lo, Hi: math.Min(hi, nf), N: n, Level: Confidence, Method: estimate.Garwood}
	}
	w := Wilson(x, n)
	w.Value, w.Lo, w.Hi = float64(x), w.Lo*nf, w.Hi*nf
	return w
}

// MeanOf is the mean of n values of the given sum and sum of squares, with its normal interval.
func MeanOf(sum int64, sumSq Wide, n int64) schema.Estimate {
	nf := float64(n)
	mean := float64(sum) / nf
	variance := 0.0
	if n > 1 {
		// (n*sumSq - sum^2) / (n(n-1)), in exact integers: no cancellation.
		num := new(big.Int).Mul(big.NewInt(n), sumSq.big())
		s := big.NewInt(sum)
		num.Sub(num, s.Mul(s, s))
		v, _ := new(big.Float).SetInt(num).Float64()
		variance = math.Max(0, v/nf/(nf-1))
	}
	half := z * math.Sqrt(variance/nf)
	return schema.Estimate{Value: mean, Lo: mean - half, Hi: mean + half, N: n, Level: Confidence, Method: estimate.Normal}
}

// rareClumps is the effective count under which a sum of per-job counts gets the scaled Poisson
// interval: the normal one held 87% at 5 repeats a run, 96% from about 100 on.
const rareClumps = 100

// meanOfCounts is the mean of n per-job counts, rare and clumped, treated as compound Poisson:
// below rareClumps it is d = sumSq/sum times Garwood's interval on sum/d, else MeanOf's.
func meanOfCounts(sum int64, sumSq Wide, n int64) schema.Estimate {
	nf := float64(n)
	sq := sumSq.Float64()
	if sum == 0 || float64(sum)*float64(sum) < rareClumps*sq {
		d := 1.0
		if sum > 0 {
			d = sq / float64(sum)
		}
		lo, hi := garwood(float64(sum) / d)
		return schema.Estimate{Value: float64(sum) / nf, Lo: d * lo / nf, Hi: d * hi / nf, N: n, Level: Confidence, Method: estimate.CompoundPoisson}
	}
	return MeanOf(sum, sumSq, n)
}
