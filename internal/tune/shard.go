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

// A search of the fleet family shards by candidate and replicate: a shard
// runs its candidates to the depth the race could give them, and the merge
// replays the race, taking each batch from the shards' replicates instead of
// running it; a replicate depends only on its runs and index, so the replay
// writes the race's bytes.

// depth is the most replicates the race could give one of candidates: the
// budget less every other candidate's first batch.
func depth(s Search, candidates int) int64 {
	return s.Budget - int64(candidates-1)*FirstReplicates
}

// Sharded is a search cut into shards of Items items, candidate i's
// replicate r being item i*depth + r: Run runs items lo to hi-1, Check
// refuses an item of another search, and Replay is Race over the items.
type Sharded[P any] struct {
	Items  int
	Run    func(ctx context.Context, lo, hi int) ([][]P, error)
	Check  func(item int, reps *[]P) error
	Replay func(ctx context.Context, items [][]P) (Result, error)
}

// Shard is s cut into shards, checked as Race checks it, and refused for
// "budget" when its candidates times depth pass what one run may keep.
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
