// Package tune searches a run kind's settings for the best candidate that
// meets every requirement, judged on 95% intervals, racing the candidates
// on common random numbers within a budget. A kind plugs in through Kind.
package tune
