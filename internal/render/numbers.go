package render

import (
	"math"
	"strconv"

	"github.com/retrysim/retrysim/internal/human"
)

// numberStyle is how the table formats (table, markdown and html) write one
// column's numbers: scaled by scale (1 when 0), with decimals fixed
// decimals, or digits significant digits when digits is set, thousands
// separated (human.Digits), unit after the value; an interval's bounds
// are rounded outwards so the interval printed holds the one computed.
type numberStyle struct {
	scale    float64
	decimals int
	digits   int
	unit     string
	share    bool
}

// The styles of the table formats' columns, each column one of them, so no
// column mixes 10.6 with 10.11 or 5,078 with 5022.7 (but Calls per job,
// whose article rounding the Part 5 goldens pin).
var (
	// jobShare is a share of jobs in percent (Succeeded), as the article's, or of a totals preset's requests.
	jobShare = numberStyle{scale: 100, decimals: 3, unit: "%", share: true}
	// wholeCount is a count of jobs, calls or side effects.
	wholeCount = numberStyle{}
	// expectedCount is a count's closed form or a mean of counts or rates (the fleet's over its replicates).
	expectedCount = numberStyle{decimals: 1}
	// callsPerJob is calls per job's intervals, expectations and spreads.
	callsPerJob = numberStyle{decimals: 2}
	// perJob is a mean per job (deliveries, charges) or per fleet request (amplification).
	perJob = numberStyle{decimals: 3}
	// zScore is how many standard errors a result is from its closed form.
	zScore = numberStyle{decimals: 2}
	// timeSeconds is a time in seconds.
	timeSeconds = numberStyle{digits: 4, unit: " s"}
	// sweepValue is a swept metric: its size is unknown until the sweep ran.
	sweepValue = numberStyle{digits: 4}
	// requestShare is a share of the fleet's requests in percent.
	requestShare = numberStyle{scale: 100, decimals: 1, unit: "%", share: true}
	// totalsCalls is a totals preset's calls a request.
	totalsCalls = numberStyle{decimals: 4}
	// wallSeconds is the wall time a real run (race) took.
	wallSeconds = numberStyle{decimals: 2, unit: " s"}
)

// number is x in the style, without the unit; "-" for NaN.
func (s numberStyle) number(x float64) string { return s.rounded(x, 0) }

// rounded is number rounded to nearest (way 0), down (-1) or up (+1).
func (s numberStyle) rounded(x float64, way int) string {
	if math.IsNaN(x) {
		return "-"
	}
	if s.scale != 0 {
		x *= s.scale
	}
	if s.digits > 0 {
		return human.Digits(significant(x, s.digits))
	}
	if way != 0 {
		p := math.Pow(10, float64(s.decimals))
		// a bound a hair past a round figure (10.1 as 10.0999...) is that figure
		const hair = 1e-9
		if way < 0 {
			x = math.Floor(x*p+hair) / p
		} else {
			x = math.Ceil(x*p-hair) / p
		}
	}
	return human.Digits(toFixed(x, s.decimals))
}

// text is x in the style with its unit; "-" for NaN.
func (s numberStyle) text(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return s.number(x) + s.unit
}

// interval is " [lo, hi]" in the style without the unit.
func (s numberStyle) interval(lo, hi float64) string {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return ""
	}
	l, h := s.bounds(lo, hi)
	if l == h {
		return ""
	}
	return " [" + l + ", " + h + "]"
}

// bounds are an interval's bounds as interval writes them.
func (s numberStyle) bounds(lo, hi float64) (string, string) {
	lo = max(lo, 0)
	if s.share {
		hi = min(hi, 1)
	}
	return s.rounded(lo, -1), s.rounded(hi, +1)
}

// significant formats x with n significant digits in plain decimals (not 2.5e-06).
func significant(x float64, n int) string {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	exp := int(math.Floor(math.Log10(math.Abs(x))))
	decimals := max(0, n-1-exp)
	s := strconv.FormatFloat(x, 'f', decimals, 64)
	if y, _ := strconv.ParseFloat(s, 64); decimals > 0 && math.Abs(y) >= math.Pow(10, float64(exp+1)) {
		s = strconv.FormatFloat(x, 'f', decimals-1, 64)
	}
	return s
}
