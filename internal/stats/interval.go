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

// Wilson is the proportion x of n with its Wilson score interval. Unlike
// the plain normal interval it stays inside [0, 1] and keeps its coverage
// near 0 and 1.
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

// garwoodCount is the count x with its exact Poisson interval, from chi-squared
// quantiles: it never undercovers, which matters for counts such as 11
// failed jobs where normal approximations do. Its N is x, the events it
// rests on.
func garwoodCount(x int64) schema.Estimate {
	lo, hi := garwood(float64(x))
	return schema.Estimate{Value: float64(x), Lo: lo, Hi: hi, N: x, Level: Confidence, Method: estimate.Garwood}
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

// rareShare is the share of jobs below which a count of jobs is treated as a
// rare count (Garwood) rather than a proportion (Wilson). Below it the Poisson
// and binomial variances differ by under 10%, and the exact Poisson interval
// holds its coverage for tiny counts.
const rareShare = 0.1

// countOfJobs is the count x of n jobs with its interval, as a count:
// Garwood's when x is a rare share of n (its Hi cut at n), Wilson's scaled
// to n otherwise. Its N is n.
func countOfJobs(x, n int64) schema.Estimate {
	nf := float64(n)
	if float64(x) <= rareShare*nf {
		g := garwoodCount(x)
		g.Hi, g.N = math.Min(g.Hi, nf), n
		return g
	}
	w := Wilson(x, n)
	w.Value, w.Lo, w.Hi = float64(x), w.Lo*nf, w.Hi*nf
	return w
}

// MeanOf is the mean of n values with the given sum and sum of squares, with
// its normal interval (sample variance; n is large in every use here).
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

// rareClumps is the effective count (below) under which a sum of per-job
// counts gets the scaled Poisson interval rather than the normal one: over 400
// seeds the normal interval held 87% at the article's point with 1,000 jobs
// (5 repeats a run) and 96% from about 100 on.
const rareClumps = 100

// meanOfCounts is the mean of n per-job counts with the given sum and sum of
// squares, and its interval. Jobs with a count are rare and come in clumps (a
// whole-job retry repeats up to nine steps at once), so the sum is treated as
// compound Poisson: sum/d is Poisson-like with the same mean and variance
// when d = sumSq/sum, the clumps' size weighted by size. While that effective
// count sum^2/sumSq is under rareClumps the interval is d times Garwood's on
// it (Garwood's own for counts of 0 and 1 a job; a sum of 0 gives [0, 3.7]
// jobs' worth, not [0, 0]); from there on it is MeanOf's normal interval.
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
