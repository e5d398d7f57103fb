// Package jobsim is the job model's providers as the engines see them: a Job makes one job's calls,
// draws their outcomes and counts their side effects; StepAttempts, StepKeys and StepBackoff read a
// step's own retry settings over the run's, and RetryResume is a strategy.Retry's fast path.
package jobsim

import (
	"math/rand/v2"

	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/provider"
)

// step is a Step compiled for the hot path.
type step struct {
	fail, lost   uint64 // rng.Threshold cuts
	canLoseReply bool
	honoursKeys  bool
}

// seenKey is a key one provider has already acted on.
type seenKey struct {
	step int
	key  provider.Key
}

// Job is one job's view of the scenario's providers: it makes the calls, draws their outcomes and
// counts their side effects; Reset reuses it for the next job.
type Job struct {
	steps    []step
	policies []provider.StepRetry // nil when no step has a policy of its own
	stream   *rng.Stream

	// clean are the cuts a clean job's draws (every step called once) are tested against, in draw
	// order.
	clean []uint64
	// stepOf[k] is the step that takes draw k of a clean job, and
	// firstDraw[i] the first draw of step i (firstDraw[n] is len(clean)).
	stepOf    []int
	firstDraw []int
	// firstKeyed is the first step whose provider honours keys, or n, where Settle stops.
	firstKeyed int

	calls    int64
	repeated int64 // side effects beyond the first, over all steps
	effects  int64 // side effects, over all steps
	done     [stats.MaxSteps]uint32
	seen     []seenKey
	fresh    provider.Key // the last fresh key handed out
	// store says the strategy keeps the Part 5 store of finished steps (bit i: step i).
	store    bool
	finished uint64
}

// New compiles the valid scenario's providers to draw from src, which it reads ahead.
func New(s provider.Scenario, src rand.Source) *Job {
	j := &Job{steps: make([]step, len(s.Steps)), stream: rng.StreamOf(src), firstKeyed: len(s.Steps), fresh: provider.StepKey}
	for i, st := range s.Steps {
		j.firstDraw = append(j.firstDraw, len(j.clean))
		if st.HonoursKeys {
			j.firstKeyed = min(j.firstKeyed, i)
		}
		j.steps[i] = step{
			fail:         rng.Threshold(st.PFail),
			lost:         rng.Threshold(st.LostReply),
			canLoseReply: st.CanLoseReply,
			honoursKeys:  st.HonoursKeys,
		}
		j.clean = append(j.clean, j.steps[i].fail)
		j.stepOf = append(j.stepOf, i)
		if st.CanLoseReply {
			j.clean = append(j.clean, j.steps[i].lost)
			j.stepOf = append(j.stepOf, i)
		}
	}
	j.firstDraw = append(j.firstDraw, len(j.clean))
	j.policies = Policies(s)
	return j
}

// Clean returns the cuts a clean job's draws are at or above, in draw order; callers must not
// modify the slice.
func (j *Job) Clean() []uint64 { return j.clean }

// once is what done holds for steps that each did their work once.
var once = func() (o [stats.MaxSteps]uint32) {
	for i := range o {
		o[i] = 1
	}
	return o
}()

// Settle counts the clean start of a freshly Reset job whose first event is draw k, stopping at the first
// provider that honours keys, and returns the step to resume from and the draws that start took.
func (j *Job) Settle(k int) (from, draws int) {
	from = min(j.stepOf[k], j.firstKeyed)
	j.calls, j.effects = int64(from), int64(from)
	copy(j.done[:from], once[:from])
	j.finished = 1<<from - 1
	return from, j.firstDraw[from]
}

// Steps is the number of steps in the scenario.
func (j *Job) Steps() int { return len(j.steps) }

// Retries are the steps' own retry settings, nil when no step sets any; callers must not modify the slice.
func (j *Job) Retries() []provider.StepRetry { return j.policies }

// UseStore gives the job the Part 5 store, or none.
func (j *Job) UseStore(on bool) { j.store = on }

// Enter reports whether the job's Part 5 store holds step i as finished.
func (j *Job) Enter(i int) bool {
	return j.store && j.finished&(1<<(uint(i)&(stats.MaxSteps-1))) != 0
}

// Guarded reports whether the job keeps the Part 5 store.
func (j *Job) Guarded() bool { return j.store }

// FreshKey returns a key no call of this job has sent.
func (j *Job) FreshKey() provider.Key {
	j.fresh++
	return j.fresh
}

// Backoff does nothing: the Part 5 model has no time.
func (j *Job) Backoff(int, int) {}

// Call calls the provider of step i with key and reports what the caller saw.
// The call fails, doing nothing, with ReplyError if its first draw is below the
// step's failure probability. Otherwise the side effect happens, unless the
// provider honours keys and has seen key before. Then a step that can lose its
// reply draws again, and the caller sees NoReply if that draw is below
// LostReply, else ReplyOK.
func (j *Job) Call(i int, key provider.Key) provider.Reply {
	j.calls++
	st := &j.steps[i]
	if j.stream.Next() < st.fail {
		return provider.ReplyError
	}
	if key == provider.NoKey || !st.honoursKeys || j.firstUse(i, key) {
		j.done[i]++
		j.effects++
		if j.done[i] > 1 {
			j.repeated++
		}
	}
	if st.canLoseReply && j.stream.Next() < st.lost {
		return provider.NoReply
	}
	j.finished |= 1 << (uint(i) & (stats.MaxSteps - 1))
	return provider.ReplyOK
}

// RolledBack counts a call whose work was rolled back before it committed: paid for, no side
// effect, no draw.
func (j *Job) RolledBack() { j.calls++ }

// firstUse records key for step i and reports whether it was new.
func (j *Job) firstUse(i int, key provider.Key) bool {
	for _, s := range j.seen {
		if s.step == i && s.key == key {
			return false
		}
	}
	j.seen = append(j.seen, seenKey{i, key})
	return true
}

// Effects reports the side effects of the job, over every step.
func (j *Job) Effects() int64 { return j.effects }

// Done reports how many times step i's side effect has happened in this job.
func (j *Job) Done(i int) uint32 { return j.done[i] }

// DoneBySteps reports how many times each step's side effect has happened; callers must not modify
// the slice.
func (j *Job) DoneBySteps() []uint32 { return j.done[:len(j.steps)] }

// Calls reports how many calls this job has made, failed ones included.
func (j *Job) Calls() int64 { return j.calls }

// Repeated reports the side effects beyond the first, over every step.
func (j *Job) Repeated() int64 { return j.repeated }

// Reset forgets the job: its side effects, calls and the keys its providers saw.
func (j *Job) Reset() {
	j.calls, j.repeated, j.effects = 0, 0, 0
	clear(j.done[:len(j.steps)])
	j.seen = j.seen[:0]
	j.fresh, j.finished = provider.StepKey, 0 // fresh keys count up from the step's key
}

// Policies are s's steps' own policies, or nil when no step sets any.
func Policies(s provider.Scenario) []provider.StepRetry {
	for _, st := range s.Steps {
		if st.Retry != (provider.StepRetry{}) {
			out := make([]provider.StepRetry, len(s.Steps))
			for i, st := range s.Steps {
				out[i] = st.Retry
			}
			return out
		}
	}
	return nil
}
