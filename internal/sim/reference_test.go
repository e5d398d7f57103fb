package sim

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

// articleSim is a straight-line port of the article's simulate.ts, written
// apart from the engine on purpose: floats from the generator compared with
// "<", string keys in maps, closures for retry and workflow, a store that
// remembers finished steps. It knows nothing of thresholds, streams or clean
// jobs, so agreement with the engine is evidence, not tautology.
func articleSim(seed uint32, jobs int, pFail, lostReply float64, attempts int, wholeJob bool, keyMode string, skipFinished bool) stats.Counters {
	a := seed
	random := func() float64 { // mulberry32, as in the article
		a += 0x6d2b79f5
		t := (a ^ (a >> 15)) * (1 | a)
		t = (t + (t^(t>>7))*(61|t)) ^ t
		return float64(t^(t>>14)) / 4294967296
	}
	names := provider.Signup(0, 0).Steps
	const email = "send the welcome email"
	errFailed := errors.New("503 service unavailable")
	errLost := errors.New("timeout, reply lost")

	type signup struct {
		userID string
		done   map[string]int
	}
	type step struct {
		name string
		run  func(job *signup) error
	}
	providerKeys := map[string]bool{}
	freshKey := 0
	calls := 0
	var steps []step
	for _, st := range names {
		name := st.Name
		steps = append(steps, step{name, func(job *signup) error {
			calls++
			if random() < pFail {
				return errFailed
			}
			alreadySent := false
			if name == email && keyMode != "no key" {
				key := "welcome-email:" + job.userID
				if keyMode == "new key on every call" {
					key += fmt.Sprintf(":%d", freshKey)
					freshKey++
				}
				alreadySent = providerKeys[key]
				providerKeys[key] = true
			}
			if !alreadySent {
				job.done[name]++
			}
			if name == email && random() < lostReply {
				return errLost
			}
			return nil
		}})
	}
	withRetry := func(run func(*signup) error) func(*signup) error {
		return func(job *signup) error {
			var err error
			for range attempts {
				if err = run(job); err == nil {
					return nil
				}
			}
			return err
		}
	}
	workflow := func(steps []step) func(*signup) error {
		return func(job *signup) error {
			for _, s := range steps {
				if err := s.run(job); err != nil {
					return err
				}
			}
			return nil
		}
	}
	finished := map[string]bool{}
	idempotent := func(steps []step) []step {
		var out []step
		for _, s := range steps {
			out = append(out, step{s.name, func(job *signup) error {
				key := s.name + ":" + job.userID
				if finished[key] {
					return nil
				}
				err := s.run(job)
				if err == nil {
					finished[key] = true
				}
				return err
			}})
		}
		return out
	}
	var handler func(*signup) error
	switch {
	case wholeJob && skipFinished:
		handler = withRetry(workflow(idempotent(steps)))
	case wholeJob:
		handler = withRetry(workflow(steps))
	default:
		var each []step
		for _, s := range steps {
			each = append(each, step{s.name, withRetry(s.run)})
		}
		handler = workflow(each)
	}

	c := stats.Counters{Jobs: int64(jobs)}
	for i := range jobs {
		job := &signup{userID: fmt.Sprintf("user_%d", i), done: map[string]int{}}
		before := calls
		if handler(job) != nil {
			c.Failed++
		}
		repeated := 0
		for k, st := range names {
			times := job.done[st.Name]
			if times > 1 {
				repeated += times - 1
				c.RepeatedByStep[k] += int64(times - 1)
				c.TwiceByStep[k]++
			}
			c.SideEffects += int64(times)
		}
		c.RepeatedSteps += int64(repeated)
		c.RepeatedSq.Add(stats.Wide{Lo: uint64(repeated * repeated)})
		c.CallsSq.Add(stats.Wide{Lo: uint64((calls - before) * (calls - before))})
		if job.done[email] > 1 {
			c.DuplicateUsers++
		}
	}
	c.Calls = int64(calls)
	return c
}

// The engine with mulberry32 equals the article's simulation for any seed, job
// count, P_FAIL, LOST_REPLY (0 and 1 included) and attempts (1 included), for
// every strategy the command can name.
func TestMulberry32MatchesArticleSimulation(t *testing.T) {
	keyModes := map[schema.KeyMode]string{
		schema.NoKeys: "no key", schema.FreshKeys: "new key on every call", schema.SameKey: "same key every time",
	}
	var strats []strategy.Retry
	for _, scope := range []strategy.Scope{strategy.EachStep, strategy.WholeJob} {
		for _, keys := range []schema.KeyMode{schema.NoKeys, schema.FreshKeys, schema.SameKey} {
			for _, skip := range []bool{false, true} {
				if scope == strategy.EachStep && skip {
					continue // the article has no store for per-step retries
				}
				strats = append(strats, strategy.Retry{Scope: scope, Keys: keys, SkipFinished: skip})
			}
		}
	}
	seeds := []uint64{1, 20260101, 1<<32 + 3}
	for _, pFail := range []float64{0, 0.01, 0.2, 1} {
		for _, lost := range []float64{0, 0.005, 0.5, 1} {
			for _, attempts := range []int{1, 2, 3, 5} {
				seed := seeds[(len(t.Name())+int(pFail*100)+int(lost*1000)+attempts)%len(seeds)]
				jobs := 400
				name := fmt.Sprintf("p=%v/l=%v/a=%d/seed=%d", pFail, lost, attempts, seed)
				t.Run(name, func(t *testing.T) {
					cfg := Config{
						Scenario:  provider.Signup(pFail, lost),
						Jobs:      int64(jobs),
						Seed:      seed,
						Generator: rng.Mulberry32Generator(),
						Workers:   3,
					}
					for _, s := range strats {
						s.Attempts = attempts
						cfg.Strategies = append(cfg.Strategies, s)
					}
					got, err := Run(context.Background(), cfg)
					if err != nil {
						t.Fatal(err)
					}
					for i, s := range strats {
						want := articleSim(uint32(seed), jobs, pFail, lost, attempts, s.Scope == strategy.WholeJob, keyModes[s.Keys], s.SkipFinished)
						if got[i] != want {
							t.Errorf("%s: engine = %+v; want %+v", s.Name(), got[i], want)
						}
					}
				})
			}
		}
	}
}

// The article's own numbers, from its published table, through the engine.
func TestArticleTable(t *testing.T) {
	var strats []strategy.Strategy
	for _, id := range strategy.DefaultIDs() {
		s, err := strategy.Parse(id, 3)
		if err != nil {
			t.Fatal(err)
		}
		strats = append(strats, s)
	}
	got, err := Run(context.Background(), Config{
		Scenario:   provider.Signup(0.01, 0.005),
		Strategies: strats,
		Jobs:       1_000_000,
		Seed:       1,
		Generator:  rng.Mulberry32Generator(),
	})
	if err != nil {
		t.Fatal(err)
	}
	// failed, calls per job to two decimals, steps done again, users with 2+ emails
	want := []struct {
		failed, repeated, dup int64
		callsPerJob           float64
	}{
		{11, 4971, 4939, 10.11},
		{11, 4971, 4939, 10.11},
		{11, 0, 0, 10.11},
		{995, 464233, 0, 10.6},
		{250, 0, 0, 10.11},
	}
	for i, w := range want {
		g := got[i]
		cpj := float64(int64(float64(g.Calls)/float64(g.Jobs)*100+0.5)) / 100
		if g.Failed != w.failed || g.RepeatedSteps != w.repeated || g.DuplicateUsers != w.dup || cpj != w.callsPerJob {
			t.Errorf("%s: failed %d, repeated %d, dup %d, calls/job %v; want %d, %d, %d, %v",
				strategy.DefaultIDs()[i], g.Failed, g.RepeatedSteps, g.DuplicateUsers, cpj, w.failed, w.repeated, w.dup, w.callsPerJob)
		}
	}
}
