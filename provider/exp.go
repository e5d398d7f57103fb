package provider

import "math"

// exp is e^x for |x| < 700, within 3 ulp of math.Exp (2 at most over four
// million random arguments) and half its cost: a lognormal latency for every call makes math.Exp the time model's
// largest cost. It is the usual table method (as in ARM's optimized-routines
// and musl): x = k ln2/N + r with |r| <= ln2/2N, e^x = 2^(k/N) e^r, 2^(k/N)
// from a table of N entries with the exponent added to its bits, e^r from a
// degree-5 polynomial whose truncation error is under 1e-18.
func exp(x float64) float64 {
	const shift = 0x1.8p52 // adding it rounds x N/ln2 to an integer in the low bits
	kd := x*(expN/math.Ln2) + shift
	ki := math.Float64bits(kd)
	kd -= shift
	r := x - kd*(ln2Hi/expN) - kd*(ln2Lo/expN)
	scale := math.Float64frombits(expTable[ki%expN] + ki<<(52-expBits))
	return scale + scale*(r+r*r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120)))))
}

const (
	expBits = 7
	expN    = 1 << expBits
	// ln2Hi + ln2Lo is ln 2 to twice double precision, ln2Hi with its low
	// bits zero so that k ln2Hi/N is exact (math/exp.go's constants).
	ln2Hi = 6.93147180369123816490e-01
	ln2Lo = 1.90821492927058770002e-10
)

// expTable[i] is 2^(i/N)'s bits, less i shifted to where exp adds k: adding
// k<<(52-expBits) then leaves floor(k/N) in the exponent.
var expTable = func() (t [expN]uint64) {
	for i := range t {
		t[i] = math.Float64bits(math.Exp2(float64(i)/expN)) - uint64(i)<<(52-expBits)
	}
	return t
}()
