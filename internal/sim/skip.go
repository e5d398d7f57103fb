package sim

import (
	"context"
	"math"
	"math/bits"

	"github.com/retrysim/retrysim/internal/jobsim"
	"github.com/retrysim/retrysim/internal/queue"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/strategy"
)

// Engine is how jobs are drawn.
type Engine int

const (
	// Auto picks Skip where the run allows it and Plain otherwise.
	Auto Engine = iota
	// Plain draws every random number of every job, in order, as a sequential generator must.
	Plain
	// Skip draws how many clean jobs come before the next job with an event, settles them at once, and
	// runs that job with its first event forced: exact in distribution, not draw for draw.
	Skip
)

// String names the engine as -engine does.
func (e Engine) String() string {
	return [...]string{"auto", "plain", "skip"}[e]
}

// Resolve picks the engine a run with generator g uses when e is asked for.
func (e Engine) Resolve(g rng.Generator) Engine {
	if e == Auto {
		if g.Sequential {
			return Plain
		}
		return Skip
	}
	return e
}

// skipper holds the probability of an event at each draw of a job, and the law of the first event
// given one.
type skipper struct {
	// logClean is log(1 - q), q the probability that a job has an event.
	logClean float64
	// shortCut is the cut below which a draw says the run of clean jobs is shorter than runTable,
	// drawn from the alias table.
	shortCut uint64
	short    aliasTable
	// first draws the position of a job's first event, given that it has one.
	first aliasTable
	// forced is scratch for the draws Unread puts in front of a job.
	forced []uint64
}

func newSkipper(cuts []uint64) *skipper {
	sk := &skipper{forced: make([]uint64, 0, len(cuts))}
	// P(first event at m), padded with zeros to a power of two for the table.
	firstAt := make([]float64, 1<<bits.Len(uint(len(cuts)-1)))
	clean := 1.0 // P(no event in the draws so far)
	for m, cut := range cuts {
		p := math.Ldexp(float64(cut), -64) // P(draw < cut), exact to a float's precision
		if cut == math.MaxUint64 {
			p = 1
		}
		firstAt[m] = clean * p
		clean *= 1 - p
	}
	q := 1 - clean
	sk.logClean = math.Log1p(-q)
	if q > 0 {
		sk.first = newAliasTable(firstAt)
		weights := make([]float64, runTable) // P(g clean jobs), g < runTable
		for g := range weights {
			weights[g] = math.Pow(clean, float64(g)) * q // clean = 1 - q; Pow(0, 0) = 1
		}
		sk.short = newAliasTable(weights)
		sk.shortCut = rng.Threshold(-math.Expm1(runTable * sk.logClean))
	}
	return sk
}

// runTable is how many short run lengths the alias table holds.
const runTable = 64

// cleanRun draws the geometric number of clean jobs before the next job with an event: a short run
// from the alias table, a longer one runTable plus a fresh geometric by inversion.
func (sk *skipper) cleanRun(stream *rng.Stream) int64 {
	if sk.logClean == 0 { // q = 0: no job ever has an event
		return math.MaxInt64
	}
	// A cut of 1 (q near 1) leaves no long runs to draw.
	if sk.shortCut == math.MaxUint64 || stream.Next() < sk.shortCut {
		return int64(sk.short.draw(stream.Next()))
	}
	g := math.Floor(math.Log(stream.Open()) / sk.logClean)
	if g >= math.MaxInt64/2 {
		return math.MaxInt64
	}
	return runTable + int64(g)
}

// aliasTable draws from a distribution over 0..len-1 (len a power of two) in O(1) with Walker's
// alias method.
type aliasTable struct {
	cut   []uint64 // keep the column when the draw's remaining bits are below
	alias []int
	shift uint // 64 - log2(len)
}

func newAliasTable(weights []float64) aliasTable {
	n := len(weights)
	t := aliasTable{cut: make([]uint64, n), alias: make([]int, n), shift: uint(64 - bits.Len(uint(n-1)))}
	total := 0.0
	for _, w := range weights {
		total += w
	}
	scaled := make([]float64, n)
	var small, large []int
	for i, w := range weights {
		scaled[i] = w * float64(n) / total
		if scaled[i] < 1 {
			small = append(small, i)
		} else {
			large = append(large, i)
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		t.cut[s], t.alias[s] = rng.Threshold(scaled[s]), l
		scaled[l] -= 1 - scaled[s]
		if scaled[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	for _, i := range append(small, large...) { // leftovers are full columns, up to rounding
		t.cut[i], t.alias[i] = math.MaxUint64, i
	}
	return t
}

// draw maps one draw to a value: its top bits pick the column, the rest the column or its alias.
func (t aliasTable) draw(u uint64) int {
	i := int(u >> t.shift)
	if u<<(64-t.shift) < t.cut[i] {
		return i
	}
	return t.alias[i]
}

// runJobsSkip is runJobs for the skip engine: only which side of its cut a draw falls on matters, so the
// forced draws before the first event are the largest value, the event 0, and later draws fresh.
func runJobsSkip(ctx context.Context, c *stats.Counters, j *jobsim.Job, sk *skipper, strat strategy.Strategy, stream *rng.Stream, n int64, watched int, job0 int64) (err error) {
	var job int64 // the job with an event in progress, from the block's first
	cs, gd := calls(ctx, j, strat)
	defer func() {
		if v := recover(); v != nil {
			err = recovered(v, strat, job0+job, gd.stepOf())
		}
	}()
	reset(c, n)
	j.UseStore(strat.UsesStore())
	resume := queue.ResumeOf(strat)
	var clean, work int64
	for left := n; left > 0; {
		if work++; work >= checkEvery {
			if ctx.Err() != nil {
				return nil
			}
			work = 0
		}
		g := sk.cleanRun(stream)
		if g >= left {
			clean += left
			break
		}
		clean += g
		left -= g + 1
		job = n - left - 1
		first := sk.first.draw(stream.Next())
		j.Reset()
		gd.reset()
		from, settled := j.Settle(first)
		stream.UnreadEvent(first - settled + 1)
		if !resume(cs, from) {
			c.Failed++
		}
		addJob(c, j.Calls(), j.Repeated(), j.Effects(), j.DoneBySteps(), watched)
		work += j.Calls()
	}
	addClean(c, clean, int64(j.Steps()))
	return nil
}

// forced is a draw from u uniform over the 53-bit draws below cut if event, at or above it if not:
// of the plain engine's law on that side, whatever compares it.
func forced(u, cut uint64, event bool) uint64 {
	below := cut>>11 + min(cut&(1<<11-1), 1) // the 53-bit draws v with v<<11 < cut
	if event {
		v, _ := bits.Mul64(u, below)
		return v << 11
	}
	v, _ := bits.Mul64(u, 1<<53-below)
	return (below + v) << 11
}

// runForced runs one job of x from time zero, its first draws forced to the sides of cuts, and
// takes the forced draws the job left.
func runForced(x *queue.Runner, sk *skipper, stream *rng.Stream, cuts []uint64, sides int, event bool) queue.Outcome {
	sk.forced = sk.forced[:0]
	for i := range sides {
		sk.forced = append(sk.forced, forced(stream.Next(), cuts[i], event && i == sides-1))
	}
	stream.Unread(sk.forced)
	d0 := stream.Draws()
	out := x.Run()
	if left := int64(sides) - (stream.Draws() - d0); left > 0 {
		stream.Skip(int(left))
	}
	return out
}

// runJobsDeliverySkip is runJobsDelivery for the skip engine, sk built from x.Cuts(): clean jobs
// are counted from their latencies alone, and a job with an event (or a clean one outlasting the
// visibility timeout) runs with its draws forced to their sides.
func runJobsDeliverySkip(ctx context.Context, c *stats.Counters, x *queue.Runner, j *jobsim.Job, sk *skipper, stream *rng.Stream, n int64, watched int, job0 int64) (err error) {
	var job int64 // the job in progress, from the block's first
	defer func() {
		if v := recover(); v != nil {
			err = recovered(v, x.Strategy(), job0+job, x.Step())
		}
	}()
	reset(c, n)
	cuts := x.Cuts()
	var clean, work int64
	for job < n {
		g := min(sk.cleanRun(stream), n-job)
		for end := job + g; job < end; job++ {
			if work++; work >= checkEvery {
				if ctx.Err() != nil {
					return nil
				}
				work = 0
			}
			if t, ok := x.Clean(); ok {
				clean++
				c.Completion.Add(t)
				continue
			}
			addDelivery(c, runForced(x, sk, stream, cuts, len(cuts), false), j, watched)
			work += j.Calls()
		}
		if job == n {
			break
		}
		first := sk.first.draw(stream.Next())
		addDelivery(c, runForced(x, sk, stream, cuts, first+1, true), j, watched)
		work += j.Calls() + 1
		job++
	}
	addClean(c, clean, int64(j.Steps()))
	c.Deliveries += clean
	return nil
}
