package stats

import (
	"cmp"
	"math"
	"slices"
)

// Observation is one replicate's time to recover, in seconds after the load settled, censored when
// not Recovered by its run's end.
type Observation struct {
	Time      float64
	Recovered bool
}

// Survival is the Kaplan-Meier estimate of the share of replicates not yet recovered t seconds
// after the load settled, which keeps the ones that did not recover as later recoveries.
type Survival struct {
	// Times are the distinct recovery times, ascending, and Left the estimate just after each.
	Times, Left []float64
}

// KaplanMeier estimates the survival curve of obs.
func KaplanMeier(obs []Observation) Survival {
	sorted := slices.Clone(obs)
	// A tie's recoveries are taken together, before its censored replicates leave the risk set.
	slices.SortFunc(sorted, func(a, b Observation) int { return cmp.Compare(a.Time, b.Time) })
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

// quantile is the time by which a share q of the replicates had recovered, NaN when it never falls
// that far.
func (s Survival) quantile(q float64) float64 {
	for i, l := range s.Left {
		if l <= 1-q+1e-12 { // 1e-12: 1 - 2/4 and the like are exact, 1 - 1/3 - ... is not
			return s.Times[i]
		}
	}
	return math.NaN()
}

// Quartiles are a recovery time's quartiles in seconds, each NaN when too few replicates recovered.
type Quartiles struct {
	P25, Median, P75 float64
}

// Quartiles are s's quartiles.
func (s Survival) Quartiles() Quartiles {
	return Quartiles{s.quantile(0.25), s.quantile(0.5), s.quantile(0.75)}
}
