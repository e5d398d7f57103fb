package tune

import (
	"context"
	"math"
	"slices"
	"strings"

	"github.com/retrysim/retrysim/internal/dist"
	"github.com/retrysim/retrysim/internal/estimate"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/pathtext"
	"github.com/retrysim/retrysim/schema"
)

// Axis is a searched setting: its path and its candidate values (durations in seconds).
type Axis struct {
	Path   string
	Values []float64
	// Whole and Duration say how a value is written: a whole number, a duration, else a number.
	Whole, Duration bool
	// Choices, when set, are an enum's names: a value is an index into them.
	Choices []string
}

// Write is v as a scenario file writes it; NaN (no one value) is "as given".
func (a Axis) Write(v float64) any {
	switch {
	case math.IsNaN(v):
		return "as given"
	case a.Choices != nil:
		return a.Choices[int(v)]
	case a.Whole:
		return int64(v)
	case a.Duration:
		return human.Seconds(v)
	}
	return v
}

// Point is a candidate's value of every axis, in the axes' order.
type Point []float64

// Pool is the work a kind has run at one point so far.
type Pool interface {
	Rows() []Row
}

// Kind is a run kind a search runs: its rows, its metrics and its work.
type Kind interface {
	// Unit names the work, plural ("jobs"); First is a candidate's first batch of it.
	Unit() string
	First() int64
	// Budget is the work a search spends when it is given none.
	Budget() int64
	// Rows are the ids of the rows a run prints (strategies, runs).
	Rows() []string
	// Metrics are the columns' keys requirements and objectives may name.
	Metrics() []string
	// Current is the point of the settings as given, NaN for a setting of no one value.
	Current(axes []Axis) (Point, error)
	// Check refuses a point (nil: the settings as given) the kind cannot run,
	// as a *schema.FieldError for "search", or for "budget" when a batch of up
	// to units would cost more than the kind allows.
	Check(axes []Axis, p Point, units int64) error
	// Run runs batch b, units each, at every point (nil: the settings as
	// given) on the same seeds (common random numbers), and returns each
	// point's pool (nil before its first batch) with the batch added.
	Run(ctx context.Context, axes []Axis, b int, units int64, at []Point, pools []Pool) ([]Pool, error)
}

// Search is what to search and what to judge a candidate by.
type Search struct {
	Axes []Axis
	// Objective is a searched setting's path or a metric (ROW:METRIC with several rows).
	Objective string
	Maximize  bool
	Require   []Requirement
	// Budget bounds the work, in the kind's units.
	Budget int64
}

const (
	MaxCandidates = 10_000
	MaxBatches    = 40
)

// Candidate is one point of the search and what the race found of it.
type Candidate struct {
	Point Point
	// Current marks the point of the settings as given.
	Current bool
	// Objective is the objective's estimate (exact for a setting).
	Objective schema.Estimate
	Judged    []Judged
	// Status is "best", "meets", "fails", "beaten" (worse, with 95%
	// confidence, than one that meets every requirement) or "undecided".
	Status string
	// Work is the units spent on it, in Batches batches.
	Work    int64
	Batches int
	means   []batchMean
	// offGrid marks current settings that are no point of the grid: never the answer nor a rival.
	offGrid bool
}

// Result is a search's answer and every candidate.
type Result struct {
	Search     Search
	Unit       string
	First      int64
	Candidates []Candidate
	// Best and RunnerUp index Candidates, -1 for none; Diff is the runner-up's
	// objective minus the best's.
	Best, RunnerUp int
	Diff           schema.Estimate
	// FullGrid is what a grid giving every candidate the most any one got would spend.
	Spent, FullGrid int64
}

// objective is a search's objective, read: an axis (index) or a metric.
type objective struct {
	axis     int // -1 for a metric
	row      string
	metric   string
	maximize bool
}

// Plan checks a search against the kind before any work, its errors
// *schema.FieldErrors for "search", "objective", "require" or "budget",
// and returns the candidates' points and the current one's index (the
// last, extra, when it is not on the grid).
func Plan(k Kind, s Search) (points []Point, cur int, extra bool, err error) {
	if len(s.Axes) == 0 {
		return nil, 0, false, pathtext.Errorf("search", "none given; search a setting by PATH=VALUES, as attempts=1:8:8")
	}
	if _, err := s.objective(k); err != nil {
		return nil, 0, false, err
	}
	for _, r := range s.Require {
		if err := r.Check(k.Metrics(), k.Rows()); err != nil {
			return nil, 0, false, pathtext.Errorf("require", "%v", err)
		}
	}
	n := 1
	for _, a := range s.Axes {
		if len(a.Values) == 0 {
			return nil, 0, false, pathtext.Errorf("search", "%s: no values", a.Path)
		}
		if n *= len(a.Values); n > MaxCandidates {
			return nil, 0, false, pathtext.Errorf("search", "the grid has more than the %d candidates a search allows", MaxCandidates)
		}
	}
	points = make([]Point, 0, n)
	for i := range n {
		p := make(Point, len(s.Axes))
		for a := len(s.Axes) - 1; a >= 0; a-- { // the first axis varies slowest
			vs := s.Axes[a].Values
			p[a], i = vs[i%len(vs)], i/len(vs)
		}
		if err := k.Check(s.Axes, p, s.Budget); err != nil {
			return nil, 0, false, err
		}
		points = append(points, p)
	}
	now, err := k.Current(s.Axes)
	if err != nil {
		return nil, 0, false, err
	}
	at := slices.IndexFunc(points, func(p Point) bool { return slices.Equal(p, now) })
	if extra = at < 0; extra {
		if err := k.Check(s.Axes, nil, s.Budget); err != nil {
			return nil, 0, false, err
		}
		points, at = append(points, now), len(points)
	}
	if first := k.First(); s.Budget < int64(len(points))*first {
		return nil, 0, false, pathtext.Errorf("budget", "%s is less than a first batch of %s for each of the %d candidates (%s)",
			human.Group(s.Budget), human.Count(first, strings.TrimSuffix(k.Unit(), "s")), len(points), human.Group(int64(len(points))*first))
	}
	return points, at, extra, nil
}

// objective reads the search's objective against k's axes and metrics.
func (s Search) objective(k Kind) (objective, error) {
	o := objective{axis: s.objectiveAxis(), maximize: s.Maximize}
	if o.axis >= 0 {
		return o, nil
	}
	var paths []string
	for _, a := range s.Axes {
		paths = append(paths, a.Path)
	}
	o.metric = s.Objective
	if i := strings.Index(o.metric, ":"); i >= 0 && !strings.Contains(o.metric[:i], "[") {
		o.row, o.metric = o.metric[:i], o.metric[i+1:]
	}
	switch {
	case !slices.Contains(k.Metrics(), o.metric):
		return o, pathtext.Errorf("objective", "%q is neither a searched setting (%s) nor a metric (%s)", s.Objective, strings.Join(paths, ", "), strings.Join(k.Metrics(), ", "))
	case o.row != "" && !slices.Contains(k.Rows(), o.row):
		return o, pathtext.Errorf("objective", "no row %q (want one of %s)", o.row, strings.Join(k.Rows(), ", "))
	case o.row == "" && len(k.Rows()) > 1:
		return o, pathtext.Errorf("objective", "%s is a metric of %d rows; name one as ROW:%s (rows %s)", o.metric, len(k.Rows()), o.metric, strings.Join(k.Rows(), ", "))
	}
	if o.row == "" {
		o.row = k.Rows()[0]
	}
	return o, nil
}

// objectiveAxis is the index of the searched setting the objective names, -1 for a metric.
func (s Search) objectiveAxis() int {
	return slices.IndexFunc(s.Axes, func(a Axis) bool { return a.Path == s.Objective })
}

// estimate is the objective at candidate c of pool p.
func (o objective) estimate(c Point, p Pool) schema.Estimate {
	if o.axis >= 0 {
		return schema.Estimate{Value: c[o.axis], Lo: c[o.axis], Hi: c[o.axis], Level: 0.95, Method: estimate.Exact}
	}
	for _, r := range p.Rows() {
		if r.ID == o.row {
			return r.Estimate(o.metric)
		}
	}
	panic("tune: no row " + o.row) // objective checked it
}

// better reports whether x's value is better than y's: a metric's NaN is
// worse than any, and a setting's NaN neither better nor worse.
func (o objective) better(x, y schema.Estimate) bool {
	switch {
	case math.IsNaN(x.Value):
		return false
	case math.IsNaN(y.Value):
		return o.axis < 0
	case o.maximize:
		return x.Value > y.Value
	}
	return x.Value < y.Value
}

// batchMean is one batch's n units' mean of a metric objective at a candidate.
type batchMean struct {
	b int
	n int64
	m float64
}

// diff is candidate y's objective minus candidate x's, with its 95% interval:
// exact for a setting; for a metric paired over 3 or more common batches, a
// Student t interval on the n-weighted differences of their means; else the
// two intervals' half-widths added in quadrature.
func (r *Result) diff(o objective, x, y int) schema.Estimate {
	cx, cy := r.Candidates[x], r.Candidates[y]
	d := schema.Estimate{Value: cy.Objective.Value - cx.Objective.Value, Level: 0.95, Method: estimate.Exact}
	d.Lo, d.Hi = d.Value, d.Value
	if o.axis >= 0 {
		return d
	}
	var n, diffs []float64
	for _, bx := range cx.means {
		for _, by := range cy.means {
			if bx.b == by.b && bx.n == by.n {
				n, diffs = append(n, float64(bx.n)), append(diffs, by.m-bx.m)
			}
		}
	}
	xlo, xhi := bounds(cx.Objective)
	ylo, yhi := bounds(cy.Objective)
	if len(diffs) < 3 || xlo == xhi || ylo == yhi {
		half := math.Hypot((xhi-xlo)/2, (yhi-ylo)/2)
		d.Lo, d.Hi, d.Method = d.Value-half, d.Value+half, estimate.Normal
		return d
	}
	var total, mean, ss float64
	for k, dk := range diffs {
		total += n[k]
		mean += n[k] * dk
	}
	mean /= total
	for k, dk := range diffs {
		ss += n[k] * (dk - mean) * (dk - mean)
	}
	k := float64(len(diffs))
	half := dist.StudentTQuantile(k-1, 0.975) * math.Sqrt(ss/(k-1)/total)
	return schema.Estimate{Value: mean, Lo: mean - half, Hi: mean + half, Level: 0.95, Method: estimate.StudentT}
}

// beats reports whether candidate x is better than candidate y with 95%
// confidence; a defined value beats a NaN.
func (r *Result) beats(o objective, x, y int) bool {
	if vx, vy := r.Candidates[x].Objective.Value, r.Candidates[y].Objective.Value; math.IsNaN(vx) || math.IsNaN(vy) {
		return !math.IsNaN(vx)
	}
	d := r.diff(o, x, y)
	if o.maximize {
		return d.Hi < 0
	}
	return d.Lo > 0
}

// bounds are e's interval, or its value for one without.
func bounds(e schema.Estimate) (lo, hi float64) {
	if math.IsNaN(e.Lo) || math.IsNaN(e.Hi) {
		return e.Value, e.Value
	}
	return e.Lo, e.Hi
}

// Race runs the search, batches doubling, until no candidate is undecided or the budget is spent.
func Race(ctx context.Context, k Kind, s Search) (Result, error) {
	points, cur, extra, err := Plan(k, s)
	if err != nil {
		return Result{}, err
	}
	run := slices.Clone(points)
	if extra {
		run[cur] = nil // the settings as given
	}
	o, _ := s.objective(k)
	res := Result{Search: s, Unit: k.Unit(), First: k.First(), Best: -1, RunnerUp: -1, Candidates: make([]Candidate, len(points))}
	pools, live := make([]Pool, len(points)), make([]int, len(points))
	for i, p := range points {
		res.Candidates[i] = Candidate{Point: p, Current: i == cur, Status: "undecided", offGrid: extra && i == cur}
		live[i] = i
	}
	for b := 0; len(live) > 0 && b < MaxBatches; b++ {
		n := res.First << b
		if left := s.Budget - res.Spent; n > left/int64(len(live)) {
			if n = left / int64(len(live)); n < res.First {
				break // the budget is spent
			}
		}
		at, in := make([]Point, len(live)), make([]Pool, len(live))
		for j, i := range live {
			at[j], in[j] = run[i], pools[i]
		}
		out, err := k.Run(ctx, s.Axes, b, n, at, in)
		if err != nil {
			return Result{}, err
		}
		for j, i := range live {
			pools[i] = out[j]
			c := &res.Candidates[i]
			before, done := c.Objective.Value, c.Work
			c.Work += n
			c.Batches++
			res.Spent += n
			c.Objective = o.estimate(c.Point, pools[i])
			if done == 0 {
				before = 0
			}
			c.means = append(c.means, batchMean{b, n, (float64(c.Work)*c.Objective.Value - float64(done)*before) / float64(n)})
			c.Judged = c.Judged[:0]
			for _, r := range s.Require {
				c.Judged = append(c.Judged, r.JudgeRows(pools[i].Rows()))
			}
		}
		live = res.decide(o)
	}
	for _, c := range res.Candidates {
		res.FullGrid = max(res.FullGrid, c.Work)
	}
	res.FullGrid *= int64(len(points))
	res.answer(o)
	return res, nil
}

// verdict is a candidate's verdict over every requirement.
func (c Candidate) verdict() Verdict {
	v := Holds
	for _, j := range c.Judged {
		switch j.Verdict {
		case Fails:
			return Fails
		case Undecided:
			v = Undecided
		}
	}
	return v
}

// decide sets every candidate's status and returns those that still need
// work: the undecided, and those that meet every requirement but are not
// yet told apart from another in the race.
func (r *Result) decide(o objective) []int {
	cs := r.Candidates
	beaten := func(i int) bool {
		for h, x := range cs {
			switch {
			case h == i || x.verdict() != Holds || x.offGrid:
			case o.axis >= 0 && (o.better(x.Objective, cs[i].Objective) || x.Objective.Value == cs[i].Objective.Value && h < i):
				return true
			case o.axis < 0 && r.beats(o, h, i):
				return true
			}
		}
		return false
	}
	for i := range cs {
		switch {
		case cs[i].verdict() == Fails:
			cs[i].Status = "fails"
		case beaten(i):
			cs[i].Status = "beaten"
		case cs[i].verdict() == Undecided:
			cs[i].Status = "undecided"
		default:
			cs[i].Status = "meets"
		}
	}
	var live []int
	for i, c := range cs {
		apart := func(j int) bool {
			x := cs[j]
			return j == i || x.offGrid || x.Status != "meets" && x.Status != "undecided" || x.Objective == c.Objective ||
				r.beats(o, i, j) || r.beats(o, j, i)
		}
		switch {
		case c.Status == "undecided":
			live = append(live, i)
		case c.Status == "meets" && o.axis < 0 && !c.offGrid:
			for j := range cs {
				if !apart(j) {
					live = append(live, i)
					break
				}
			}
		}
	}
	return live
}

// leader is the best candidate but skip that meets every requirement, the
// first on the grid among equals; -1 for none.
func (r *Result) leader(o objective, skip int) int {
	best := -1
	for i, c := range r.Candidates {
		if i != skip && c.Batches > 0 && c.verdict() == Holds && !c.offGrid && (best < 0 || o.better(c.Objective, r.Candidates[best].Objective)) {
			best = i
		}
	}
	return best
}

// answer sets the best candidate, the runner-up and their difference.
func (r *Result) answer(o objective) {
	if r.Best = r.leader(o, -1); r.Best < 0 {
		return
	}
	r.Candidates[r.Best].Status = "best"
	if r.RunnerUp = r.leader(o, r.Best); r.RunnerUp >= 0 {
		r.Diff = r.diff(o, r.Best, r.RunnerUp)
	}
}
