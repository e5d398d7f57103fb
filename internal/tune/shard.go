package tune

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/pathtext"
	"github.com/retrysim/retrysim/internal/shardfile"
)

// A search of the fleet family shards by candidate and replicate: a race
// decides as it goes which candidate runs which batch, so a shard, which
// cannot know what the others found, runs for its share of the candidates
// every replicate the race could give them (its depth: the budget less
// every other candidate's first batch), and the merge replays the race over
// those replicates, taking each batch from them instead of running it. A
// replicate depends only on the candidate's runs and its index (the seed
// and First + r), so the replay meets the numbers the race met and writes
// the same bytes. The cost is the price: every candidate runs to the depth,
// as a full grid at the budget would.

// depth is the most replicates the race of s over its candidates could give
// one of them: the budget less every other candidate's first batch.
func depth(s Search, candidates int) int64 {
	return s.Budget - int64(candidates-1)*FirstReplicates
}

// Sharded is a search cut into shards: Items items, candidate i's
// replicate r being item i*depth + r, each the replicate of every run of the
// candidate; Run runs items lo to hi-1, Check refuses an item that is not
// a replicate of each of its candidate's runs (a shard of another search,
// or altered), and Replay is the race over every item, each batch taken
// from them instead of run, so its result is Race's.
type Sharded[P any] struct {
	Items  int
	Run    func(ctx context.Context, lo, hi int) ([][]P, error)
	Check  func(item int, reps *[]P) error
	Replay func(ctx context.Context, items [][]P) (Result, error)
}

// Shard is s cut into shards, checked before any work as Race checks it,
// and refused (as a *schema.FieldError for "budget") when the replicates it
// keeps are more than one run may keep: candidates times depth times the
// runs' duration within limits.FleetSeriesSeconds, and within shardfile.MaxItems.
func (k family[C, P, R]) Shard(s Search) (Sharded[P], error) {
	points, cur, extra, err := Plan(k, s)
	if err != nil {
		return Sharded[P]{}, err
	}
	n, d := int64(len(points)), depth(s, len(points))
	secs := int64(math.Max(1, math.Ceil(k.Duration.Seconds())))
	if n*d*secs > limits.FleetSeriesSeconds || n*d > shardfile.MaxItems {
		most := min(limits.FleetSeriesSeconds/(n*secs), shardfile.MaxItems/n) + (n-1)*FirstReplicates
		if most < n*FirstReplicates {
			return Sharded[P]{}, pathtext.Errorf("budget", "a sharded search runs each of its %d candidates to the depth the race could give it, which runs of %d s cannot keep; search fewer candidates", n, secs)
		}
		return Sharded[P]{}, pathtext.Errorf("budget", "a sharded search runs each of its %d candidates to the depth the race could give it (the budget less the others' first batches: %d replicates), %d replicates of %d s in all, past the %d s of series a run may keep; give -budget %d or less",
			n, d, n*d, secs, limits.FleetSeriesSeconds, most)
	}
	runs := make([][]C, n) // each candidate's runs
	for i := range points {
		if extra && i == cur {
			points[i] = nil // the settings as given
		}
		runs[i] = k.at(s.Axes, points[i])
	}
	sh := Sharded[P]{Items: int(n * d)}
	sh.Run = func(ctx context.Context, lo, hi int) ([][]P, error) {
		var out [][]P
		for lo < hi {
			i, r := lo/int(d), lo%int(d)
			m := min(hi-lo, int(d)-r) // to the end of the candidate's, or of the slice
			reps, err := k.run(ctx, []Point{points[i]}, runs[i], k.options(r, int64(m)))
			if err != nil {
				return nil, err
			}
			for q := range m {
				item := make([]P, len(reps))
				for j := range reps {
					item[j] = reps[j][q]
				}
				out = append(out, item)
			}
			lo += m
		}
		return out, nil
	}
	sh.Check = func(item int, reps *[]P) error {
		c := runs[item/int(d)]
		if len(*reps) != len(c) {
			return fmt.Errorf("%d runs; the candidate has %d", len(*reps), len(c))
		}
		for j := range c {
			if err := k.checkRep(&c[j], &(*reps)[j]); err != nil {
				return fmt.Errorf("run %d: %w", j, err)
			}
		}
		return nil
	}
	sh.Replay = func(ctx context.Context, items [][]P) (Result, error) {
		if len(items) != sh.Items {
			return Result{}, fmt.Errorf("tune: %d replicates for %d candidates of %d", len(items), n, d)
		}
		replay := k
		replay.run = func(_ context.Context, at []Point, _ []C, opts fleet.Options) ([][]P, error) {
			var out [][]P
			for _, p := range at {
				i := slices.IndexFunc(points, func(q Point) bool { return slices.Equal(p, q) && (p == nil) == (q == nil) })
				if i < 0 || int64(opts.First+opts.Replicates) > d {
					return nil, fmt.Errorf("tune: the race asked for replicates %d to %d of a candidate, past the %d run", opts.First, opts.First+opts.Replicates, d)
				}
				for j := range k.runs {
					var reps []P
					for r := opts.First; r < opts.First+opts.Replicates; r++ {
						reps = append(reps, items[int64(i)*d+int64(r)][j])
					}
					out = append(out, reps)
				}
			}
			return out, nil
		}
		return Race(ctx, replay, s)
	}
	return sh, nil
}
