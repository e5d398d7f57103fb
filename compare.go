package retrysim

import (
	"fmt"
	"math"
	"strconv"

	"github.com/retrysim/retrysim/internal/dist"
	"github.com/retrysim/retrysim/internal/estimate"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/schema"
)

// Comparison says whether row B differs from row A on one metric, and how sure that is, from their
// counters alone, as benchmath's Comparison does for benchmarks.
//
// A share of jobs is compared with Newcombe's hybrid score interval and the pooled two-proportion z test; a
// mean per job with the normal interval and z test of a difference of two means (Welch's variances). Both
// treat the rows as independent: two rows of one experiment share their random draws, so the interval is
// then wider and the p-value larger than they need be, never narrower or smaller.
type Comparison struct {
	// Metric is the metric compared, one of Row.Rate's names.
	Metric string
	// A and B are the rows' estimates: Wilson's interval for a share, the normal one for a mean.
	A, B schema.Estimate
	// Diff is B - A with its 95% interval; its N is the jobs of both rows.
	Diff schema.Estimate
	// P is the two-sided p-value of no difference.
	P float64
}

// alpha is the level below which a p-value is a significant difference.
const alpha = 1 - stats.Confidence

// significant reports whether the rows differ at the 5% level.
func (c Comparison) significant() bool { return c.P < alpha }

// Better reports whether B is significantly better than A at the 5% level: more jobs succeeded, or
// fewer failures, calls, repeats or duplicates.
func (c Comparison) Better() bool {
	if !c.significant() {
		return false
	}
	if c.Metric == "succeeded" {
		return c.Diff.Value > 0
	}
	return c.Diff.Value < 0
}

// String is the difference with its interval and p-value, "+0.0151 [+0.0075, +0.0227] (p=0.0001)",
// or "~ (p=0.42)" for no significant difference.
func (c Comparison) String() string {
	p := "(p=" + strconv.FormatFloat(c.P, 'g', 2, 64) + ")"
	if !c.significant() {
		return "~ " + p
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 3, 64) }
	sign := func(x float64) string {
		if x >= 0 {
			return "+" + f(x)
		}
		return f(x)
	}
	return fmt.Sprintf("%s [%s, %s] %s", sign(c.Diff.Value), sign(c.Diff.Lo), sign(c.Diff.Hi), p)
}

// Compare compares row b with row a on metric, one of Row.Rate's names; it refuses an unknown
// metric and a row of no jobs.
func Compare(a, b *Row, metric string) (Comparison, error) {
	if _, err := stats.LookupMetric(metric); err != nil {
		return Comparison{}, err
	}
	if a.counters.Jobs < 1 || b.counters.Jobs < 1 {
		return Comparison{}, fmt.Errorf("compare %s: a row of no jobs has no %s", metric, metric)
	}
	ca, cb := &a.counters, &b.counters
	switch metric {
	case "succeeded":
		return proportions(metric, ca.Jobs-ca.Failed, ca.Jobs, cb.Jobs-cb.Failed, cb.Jobs), nil
	case "failed_rate":
		return proportions(metric, ca.Failed, ca.Jobs, cb.Failed, cb.Jobs), nil
	case "duplicate_rate":
		return proportions(metric, ca.DuplicateUsers, ca.Jobs, cb.DuplicateUsers, cb.Jobs), nil
	case "calls_per_job":
		return means(metric, ca.Calls, ca.CallsSq, ca.Jobs, cb.Calls, cb.CallsSq, cb.Jobs), nil
	}
	return means(metric, ca.RepeatedSteps, ca.RepeatedSq, ca.Jobs, cb.RepeatedSteps, cb.RepeatedSq, cb.Jobs), nil
}

// CompareWatched compares row b with row a on the share of jobs whose watched step called step did
// its work twice or more; its Metric is duplicate_rate_step_<i>, i from 1.
func (rep Report) CompareWatched(a, b *Row, step string) (Comparison, error) {
	wa, err := rep.WatchedStep(a, step)
	if err != nil {
		return Comparison{}, err
	}
	wb, _ := rep.WatchedStep(b, step)
	name := "duplicate_rate_step_" + strconv.Itoa(wa.Step+1)
	if a.counters.Jobs < 1 || b.counters.Jobs < 1 {
		return Comparison{}, fmt.Errorf("compare %s: a row of no jobs has no %s", name, name)
	}
	return proportions(name, wa.Twice, a.counters.Jobs, wb.Twice, b.counters.Jobs), nil
}

// pValue is the two-sided p-value of a difference d of standard error se: 1 when both are 0.
func pValue(d, se float64) float64 {
	switch {
	case se > 0:
		return math.Erfc(math.Abs(d/se) / math.Sqrt2)
	case d == 0: // both 0% or both 100%: nothing tells them apart
		return 1
	}
	return 0
}

// proportions compares x2 of n2 with x1 of n1.
func proportions(metric string, x1, n1, x2, n2 int64) Comparison {
	w1, w2 := stats.Wilson(x1, n1), stats.Wilson(x2, n2)
	p1, p2 := w1.Value, w2.Value
	d := p2 - p1
	c := Comparison{Metric: metric, A: w1, B: w2, Diff: schema.Estimate{Value: d,
		Lo: d - math.Hypot(p2-w2.Lo, w1.Hi-p1), Hi: d + math.Hypot(w2.Hi-p2, p1-w1.Lo),
		N: n1 + n2, Level: stats.Confidence, Method: estimate.Newcombe}}
	pooled := float64(x1+x2) / float64(n1+n2)
	c.P = pValue(d, math.Sqrt(pooled*(1-pooled)*(1/float64(n1)+1/float64(n2))))
	return c
}

// means compares the mean of n2 per-job counts (sum2, sq2 their sum and sum of squares) with that of n1.
func means(metric string, sum1 int64, sq1 stats.Wide, n1 int64, sum2 int64, sq2 stats.Wide, n2 int64) Comparison {
	z := dist.NormalQuantile(1 - alpha/2)
	e1, e2 := stats.MeanOf(sum1, sq1, n1), stats.MeanOf(sum2, sq2, n2)
	se1, se2 := (e1.Hi-e1.Value)/z, (e2.Hi-e2.Value)/z // each mean's standard error
	d := e2.Value - e1.Value
	se := math.Hypot(se1, se2)
	return Comparison{Metric: metric, A: e1, B: e2, Diff: schema.Estimate{Value: d, Lo: d - z*se, Hi: d + z*se,
		N: n1 + n2, Level: stats.Confidence, Method: estimate.NormalDifference}, P: pValue(d, se)}
}
