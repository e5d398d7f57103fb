package stats

import (
	"math"
	"slices"
)

// Observation is one replicate's time to recover: Time seconds after the
// load settled, when Recovered; otherwise the replicate was still down when
// its run ended, Time seconds after the load settled, and all that is known
// is that its recovery comes later (a censored observation).
type Observation struct {
	Time      float64
	Recovered bool
}

// Survival is the Kaplan-Meier estimate of the share of replicates not yet
// recovered t seconds after the load settled: a step function that falls at
// each recovery time t_i by the factor 1 - d_i/n_i, d_i the replicates that
// recovered at t_i and n_i those neither recovered nor censored before t_i
// (a replicate censored at t_i counts in n_i: it was still down then).
// Unlike a mean over the replicates that recovered, it keeps the ones that
// did not, as recoveries later than their run's end.
type Survival struct {
	// Times are the distinct recovery times, ascending, and Left the
	// estimate just after each.
	Times, Left []float64
}

// KaplanMeier estimates the survival curve of obs.
func KaplanMeier(obs []Observation) Survival {
	sorted := slices.Clone(obs)
	// At a tie a recovery comes before a censoring, as is usual: the
	// censored replicate was still at risk at that time.
	slices.SortStableFunc(sorted, func(a, b Observation) int {
		if a.Time != b.Time {
			if a.Time < b.Time {
				return -1
			}
			return 1
		}
		switch {
		case a.Recovered && !b.Recovered:
			return -1
		case !a.Recovered && b.Recovered:
			return 1
		}
		return 0
	})
	var s Survival
	left, atRisk := 1.0, len(sorted)
	for i := 0; i < len(sorted); {
		j, d := i, 0
		for j < len(sorted) && sorted[j].Time == sorted[i].Time {
			if sorted[j].Recovered {
				d++
			}
			j++
		}
		if d > 0 {
			left *= 1 - float64(d)/float64(atRisk)
			s.Times, s.Left = append(s.Times, sorted[i].Time), append(s.Left, left)
		}
		atRisk -= j - i
		i = j
	}
	return s
}

// quantile is the time by which a share q in (0, 1) of the replicates had
// recovered: the first recovery time at which the estimate left is at most
// 1 - q (for q = 0.5, the median). NaN when it never falls that far, as when
// fewer than half the replicates recovered within their run (the median is
// then "never", or at least beyond the runs' ends).
func (s Survival) quantile(q float64) float64 {
	for i, l := range s.Left {
		if l <= 1-q+1e-12 { // 1e-12: 1 - 2/4 and the like are exact, 1 - 1/3 - ... is not
			return s.Times[i]
		}
	}
	return math.NaN()
}

// Quartiles are a recovery time's quartiles, in seconds after the load
// settled, from the Kaplan-Meier estimate; each NaN when fewer than that
// share of the replicates recovered within the run.
type Quartiles struct {
	P25, Median, P75 float64
}

// Quartiles are s's quartiles.
func (s Survival) Quartiles() Quartiles {
	return Quartiles{s.quantile(0.25), s.quantile(0.5), s.quantile(0.75)}
}
