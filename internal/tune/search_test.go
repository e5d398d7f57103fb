package tune

import (
	"context"
	"math"
	"testing"

	"github.com/retrysim/retrysim/schema"
)

// fakeKind has one row and one metric, m, whose estimate at a point x after
// n units is x exactly, with the interval x ± 1/sqrt(n): a race on it is a
// race on known widths, with no chance in it. At a negative x, m is not
// defined (NaN), as a drain that never came.
type fakeKind struct{ ran map[float64]int64 }

type fakePool struct{ x, n float64 }

func (p *fakePool) Rows() []Row {
	return []Row{{ID: "r", Estimate: func(string) schema.Estimate {
		h := 1 / math.Sqrt(p.n)
		if p.x < 0 {
			return schema.Estimate{Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
		}
		return schema.Estimate{Value: p.x, Lo: p.x - h, Hi: p.x + h}
	}}}
}

func (fakeKind) Unit() string                       { return "units" }
func (fakeKind) First() int64                       { return 4 }
func (fakeKind) Budget() int64                      { return 1000 }
func (fakeKind) Rows() []string                     { return []string{"r"} }
func (fakeKind) Metrics() []string                  { return []string{"m"} }
func (fakeKind) Current(axes []Axis) (Point, error) { return Point{axes[0].Values[0]}, nil }
func (fakeKind) Check([]Axis, Point, int64) error   { return nil }
func (k fakeKind) Run(_ context.Context, _ []Axis, _ int, n int64, at []Point, pools []Pool) ([]Pool, error) {
	out := make([]Pool, len(at))
	for i, p := range at {
		k.ran[p[0]] += n
		fp, _ := pools[i].(*fakePool)
		if fp == nil {
			fp = &fakePool{x: p[0]}
		}
		fp.n += float64(n)
		out[i] = fp
	}
	return out, nil
}

// TestRaceSpendsWhereItDecides: with m <= 1 required and the most x
// wanted, the batches doubling from 4 (4, 12, 28, 60, 124 in all): 0.5
// holds after 4 units (0.5 ± 0.5), 2 and 3 fail after 4, 1.2 fails once
// 1/sqrt(n) < 0.2 (past 25: 28), and 0.9 holds once 1/sqrt(n) <= 0.1 (100
// and more: 124); 0.5 is
// beaten by 0.9 as soon as both hold, and 0.9 is the answer. The grid
// would give all five the 124 that 0.9 took.
func TestRaceSpendsWhereItDecides(t *testing.T) {
	k := fakeKind{ran: map[float64]int64{}}
	s := Search{Axes: []Axis{{Path: "x", Values: []float64{0.5, 0.9, 1.2, 2, 3}}}, Objective: "x", Maximize: true,
		Require: []Requirement{{Metric: "m", Op: "<=", Value: 1}}, Budget: 1000}
	res, err := Race(context.Background(), k, s)
	if err != nil {
		t.Fatal(err)
	}
	want := map[float64]int64{0.5: 4, 0.9: 124, 1.2: 28, 2: 4, 3: 4}
	for x, n := range want {
		if k.ran[x] != n {
			t.Errorf("x=%g ran %d units; want %d", x, k.ran[x], n)
		}
	}
	if res.Best != 1 || res.Candidates[1].Status != "best" || res.Candidates[0].Status != "beaten" || res.Candidates[2].Status != "fails" {
		t.Errorf("best %d, statuses %v %v %v; want 1, best, beaten, fails", res.Best, res.Candidates[1].Status, res.Candidates[0].Status, res.Candidates[2].Status)
	}
	if res.Spent != 164 || res.FullGrid != 5*124 {
		t.Errorf("spent %d, full grid %d; want 164, %d", res.Spent, res.FullGrid, 5*124)
	}
	if !res.Candidates[0].Current || res.RunnerUp != 0 || res.Diff.Value != -0.4 {
		t.Errorf("current %v, runner-up %d, diff %v; want 0.5 current and runner-up at -0.4", res.Candidates[0].Current, res.RunnerUp, res.Diff.Value)
	}
}

// TestRaceKeepsToTheBudget: 0.9 needs 100 units to hold; a budget of 60
// for two candidates leaves it undecided, every batch costed before it ran.
func TestRaceKeepsToTheBudget(t *testing.T) {
	k := fakeKind{ran: map[float64]int64{}}
	s := Search{Axes: []Axis{{Path: "x", Values: []float64{0.9, 3}}}, Objective: "x", Require: []Requirement{{Metric: "m", Op: "<=", Value: 1}}, Budget: 60}
	res, err := Race(context.Background(), k, s)
	if err != nil {
		t.Fatal(err)
	}
	// 4+4, then 8 (0.9 alone), 16, 28 (the 28 left): 60.
	if res.Spent != 60 || res.Best != -1 || res.Candidates[0].Status != "undecided" || k.ran[0.9] != 56 {
		t.Errorf("spent %d, best %d, status %s, 0.9 ran %d; want 60, none, undecided, 56", res.Spent, res.Best, res.Candidates[0].Status, k.ran[0.9])
	}
	s.Budget = 7
	if _, err := Race(context.Background(), k, s); err == nil || err.Error() != "budget: 7 is less than a first batch of 4 units for each of the 2 candidates (8)" {
		t.Errorf("budget 7: %v; want it refused", err)
	}
}

// TestRaceOnAMetric: minimizing m, 1 and 1.5 race until the interval of
// their difference leaves 0: with fewer than 3 batches in common, the
// half-widths 1/sqrt(n) added in quadrature, sqrt(2/n) < 0.5 past n = 8,
// so 12 units (4+8); 3 is beaten after the first batch (2 ± 0.71 over 1);
// 1 is the answer, 0.5 ± sqrt(2/12) below the runner-up.
func TestRaceOnAMetric(t *testing.T) {
	k := fakeKind{ran: map[float64]int64{}}
	s := Search{Axes: []Axis{{Path: "x", Values: []float64{1, 1.5, 3}}}, Objective: "m", Budget: 1000}
	res, err := Race(context.Background(), k, s)
	if err != nil {
		t.Fatal(err)
	}
	if k.ran[1] != 12 || k.ran[1.5] != 12 || k.ran[3] != 4 || res.Best != 0 || res.RunnerUp != 1 {
		t.Errorf("ran %v, best %d, runner-up %d; want 1 and 1.5 12 units, 3 4 units, best 0, runner-up 1", k.ran, res.Best, res.RunnerUp)
	}
	half := math.Sqrt(2.0 / 12)
	if d := res.Diff; d.Value != 0.5 || math.Abs(d.Lo-(0.5-half)) > 1e-12 || math.Abs(d.Hi-(0.5+half)) > 1e-12 {
		t.Errorf("diff %v [%v, %v]; want 0.5 ± %v", d.Value, d.Lo, d.Hi, half)
	}
}

// pairKind's metric m at point x after batches b = 0, 1, ... is x plus a
// noise shared by every point in each batch (common random numbers): the
// batch means are x + e_b, e_b = 0.3, -0.3, 0.3, ..., so the two points'
// difference is exactly 0.1 in every batch, while their own intervals,
// +-1/sqrt(n) each, tell 0.1 apart only past 200 units (sqrt(2/n) < 0.1).
type pairKind struct{ fakeKind }

type pairPool struct {
	x, n, sum float64
}

func (p *pairPool) Rows() []Row {
	return []Row{{ID: "r", Estimate: func(string) schema.Estimate {
		h, m := 1/math.Sqrt(p.n), p.sum/p.n
		return schema.Estimate{Value: m, Lo: m - h, Hi: m + h}
	}}}
}

func (pairKind) Run(_ context.Context, _ []Axis, b int, n int64, at []Point, pools []Pool) ([]Pool, error) {
	out := make([]Pool, len(at))
	e := 0.3
	if b%2 == 1 {
		e = -0.3
	}
	for i, p := range at {
		pp, _ := pools[i].(*pairPool)
		if pp == nil {
			pp = &pairPool{x: p[0]}
		}
		pp.n += float64(n)
		pp.sum += float64(n) * (p[0] + e)
		out[i] = pp
	}
	return out, nil
}

// TestRacePairs: with the noise shared, the paired difference has no
// spread after 3 batches (4+8+16 = 28 units each), where the unpaired
// intervals would take past 200.
func TestRacePairs(t *testing.T) {
	s := Search{Axes: []Axis{{Path: "x", Values: []float64{1, 1.1}}}, Objective: "m", Budget: 100_000}
	res, err := Race(context.Background(), pairKind{}, s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Spent != 56 || res.Best != 0 || math.Abs(res.Diff.Value-0.1) > 1e-9 || res.Diff.Hi-res.Diff.Lo > 1e-9 {
		t.Errorf("spent %d, best %d, diff %v [%v, %v]; want 56, 0, 0.1 with no spread", res.Spent, res.Best, res.Diff.Value, res.Diff.Lo, res.Diff.Hi)
	}
}

// TestRaceUndefinedIsWorst: a candidate whose metric objective is not
// defined (NaN, first on the grid) is beaten by one with a value, and never
// the answer: with m minimized over -1 (undefined), 2 and 3, the answer is
// 2, decided in the first batch (2 and 3 differ by 1, their unpaired
// half-widths 0.5 in quadrature 0.71), and -1 beaten.
func TestRaceUndefinedIsWorst(t *testing.T) {
	k := fakeKind{ran: map[float64]int64{}}
	s := Search{Axes: []Axis{{Path: "x", Values: []float64{-1, 2, 3}}}, Objective: "m", Budget: 1000}
	res, err := Race(context.Background(), k, s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Best != 1 || res.Candidates[0].Status != "beaten" || res.Spent != 12 {
		t.Errorf("best %d, undefined %s, spent %d; want 1 (m = 2), beaten, 12", res.Best, res.Candidates[0].Status, res.Spent)
	}
}
