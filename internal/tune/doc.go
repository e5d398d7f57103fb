// Package tune searches a run kind's settings for the best candidate that
// meets every requirement: requirements (METRIC OP VALUE) judged on a
// metric's 95% interval, and a race that spends work (jobs or replicates) on
// the candidates still undecided, on common random numbers, within a budget.
// A kind plugs in through Kind; the package holds no model of its own.
package tune
