package tune

import (
	"context"
	"fmt"
	"math"
	"slices"

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
	secs := int64(math.Max(1, math.Ceil(k.duration.Seconds())))
	if n*d*secs > limits.FleetSeriesSeconds || n*d > shardfile.MaxItems {
		most := min(limits.FleetSeriesSeconds/(n*secs), shardfile.MaxItems/n) + (n-1)*FirstReplicates
		if most < n*FirstReplicates {
			return Sharded[P]{}, pathtext.Errorf("budget", "a sharded search runs each of its %d candidates to the depth the race could give it, which runs of %d s cannot keep; search fewer candidates", n, secs)
		}
		return Sharded[P]{}, pathtext.Errorf("budget", "a sharded search runs each of its %d candidates to the depth the race could give it (the budget less the others' first batches: %d replicates), %d replicates of %d s in all, past the %d s of series a run may keep; give -budget %d or less",
			n, d, n*d, secs, limits.FleetSeriesSeconds, most)
	}
	var runs []C // each candidate's runs, a point each
	for i := range points {
		if extra && i == cur {
			points[i] = nil // the settings as given
		}
		runs = append(runs, k.at(s.Axes, points[i])...)
	}
	per := len(k.runs)
	sh := Sharded[P]{Items: int(n * d)}
	sh.Run = func(ctx context.Context, lo, hi int) ([][]P, error) {
		return k.kind.Run(ctx, runs, per, k.options(d), lo, hi)
	}
	sh.Check = func(item int, reps *[]P) error {
		return k.kind.Check(runs, per, int(d), item, *reps, "the candidate has %d")
	}
	sh.Replay = func(ctx context.Context, items [][]P) (Result, error) {
		if len(items) != sh.Items {
			return Result{}, fmt.Errorf("tune: %d replicates for %d candidates of %d", len(items), n, d)
		}
		replay := k
		replay.replay = func(at []Point, first, m int) ([][]P, error) {
			var out [][]P
			for _, p := range at {
				i := slices.IndexFunc(points, func(q Point) bool { return slices.Equal(p, q) && (p == nil) == (q == nil) })
				if i < 0 || int64(first+m) > d {
					return nil, fmt.Errorf("tune: the race asked for replicates %d to %d of a candidate, past the %d run", first, first+m, d)
				}
				out = append(out, items[i*int(d)+first:i*int(d)+first+m]...)
			}
			return out, nil
		}
		return Race(ctx, replay, s)
	}
	return sh, nil
}
