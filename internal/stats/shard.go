package stats

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"math/bits"
	"reflect"
	"strings"

	"github.com/retrysim/retrysim/internal/hist"
	"github.com/retrysim/retrysim/internal/limits"
)

// ShardFormat versions the shard files that merge reads: 3 holds the completion times in
// hist.Histogram's buckets.
const ShardFormat = 3

// MaxShardBytes is the largest shard ReadShard reads, bounding what an endless file can make a
// reader hold: MaxShardRows rows of the worst case, 706 KB each, fit (TestMaxShardRowsFit).
const MaxShardBytes = 24 << 20

// MaxShardRows is the most strategies a shard holds: every run of the twelve strategies, with room
// for a program's own.
const MaxShardRows = 32

// Shard is one slice of a run: its parameters, which slice, and every strategy's raw counters.
type Shard struct {
	Format int `json:"retrysim_shard"`
	Index  int `json:"shard_index"`
	Count  int `json:"shard_count"`
	Params
	// Model is the run's scenario and queue, unless it is the built-in sign-up at p_fail and
	// lost_reply.
	Model *Model `json:"model,omitempty"`
	Rows  []Row  `json:"rows"`
}

// ReadShard decodes one shard of at most MaxShardBytes from r and checks it (Shard.Check), refusing
// unknown, miscased or repeated keys, arrays of the wrong length, a step's own policy written as
// the run's, trailing data, and an older format before its rows.
func ReadShard(r io.Reader) (Shard, error) {
	lr := &io.LimitedReader{R: r, N: MaxShardBytes + 1}
	data, err := io.ReadAll(lr)
	if lr.N == 0 {
		return Shard{}, fmt.Errorf("larger than the %d MiB a shard may be", MaxShardBytes>>20)
	}
	var head struct {
		Format int `json:"retrysim_shard"`
	}
	if err == nil && json.Unmarshal(data, &head) == nil && head.Format != ShardFormat && head.Format != 0 {
		return Shard{}, formatError(head.Format)
	}
	if err != nil {
		return Shard{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var sh Shard
	err = strictKeys(data)
	if err == nil {
		err = dec.Decode(&sh)
	}
	if err == nil {
		if _, end := dec.Token(); end != io.EOF {
			err = errors.New("data after the JSON object")
		}
	}
	if err := stepsLeftOut(data); err != nil {
		// before the decoder's error, which would say less
		return Shard{}, err
	}
	if err != nil {
		return Shard{}, fmt.Errorf("not a retrysim shard: %v", err)
	}
	return sh, sh.Check()
}

// strictKeys refuses a key given twice in one object, or not lower-case ASCII, which encoding/json
// would accept; syntax errors are the decoder's.
func strictKeys(data []byte) error {
	type level struct {
		seen    map[string]bool // nil in an array
		wantKey bool
	}
	var stack []level
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, level{seen: map[string]bool{}, wantKey: true})
				continue
			case '[':
				stack = append(stack, level{})
				continue
			}
			stack = stack[:len(stack)-1]
		case string:
			if n := len(stack); n > 0 && stack[n-1].wantKey {
				top := &stack[n-1]
				if strings.IndexFunc(t, func(r rune) bool { return !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '_') }) >= 0 {
					return fmt.Errorf("key %q: field names are lower case, as a shard's writer writes them", t)
				}
				if top.seen[t] {
					return fmt.Errorf("key %q is given twice in one object", t)
				}
				top.seen[t], top.wantKey = true, false
				continue
			}
		}
		// A value ended: the end of data's value, or the next key is due.
		if len(stack) == 0 {
			return nil
		}
		if top := &stack[len(stack)-1]; top.seen != nil {
			top.wantKey = true
		}
	}
}

// Check reports, naming the field, the first thing in s that no run can have written; what needs
// the engine (names of generators and strategies, a slice's exact jobs) package sim checks.
func (s Shard) Check() error {
	switch {
	case s.Format != ShardFormat:
		return formatError(s.Format)
	case s.Count < 1:
		return fmt.Errorf("shard_count: %d is not at least 1", s.Count)
	case s.Index < 0 || s.Index >= s.Count:
		return fmt.Errorf("shard_index: %d is not in [0, %d)", s.Index, s.Count)
	case s.Steps < 1 || s.Steps > MaxSteps:
		return fmt.Errorf("steps: %d is not from 1 to %d", s.Steps, MaxSteps)
	case s.Attempts < 0:
		return fmt.Errorf("attempts: %d is negative", s.Attempts)
	case (s.Delivery != nil) != (s.Model != nil && s.Model.Queue != nil):
		return errors.New("delivery, model.queue: a run of the delivery model carries both, any other run neither")
	case (s.File != "") && s.Model == nil:
		return errors.New("model: missing; a run of a scenario file carries its model")
	case len(s.Rows) == 0:
		return errors.New("rows: none; a shard holds a row for every strategy of the run")
	case len(s.Rows) > MaxShardRows:
		return fmt.Errorf("rows: %d are more than the %d a shard holds", len(s.Rows), MaxShardRows)
	}
	if err := s.checkAttempts(); err != nil {
		return err
	}
	if err := printableText(reflect.ValueOf(s), ""); err != nil {
		return err
	}
	attempts, deliveries := s.Attempts, int64(0) // a step's own attempts may exceed the run's
	if m := s.Model; m != nil {
		if len(m.Steps) != s.Steps { // package sim checks the values
			return fmt.Errorf("model.steps: %d steps, but the run has %d", len(m.Steps), s.Steps)
		}
		for _, st := range m.Steps {
			if a, ok := st.Lookup("attempts").(int64); ok {
				attempts = max(attempts, int(a))
			}
		}
		if m.Queue != nil {
			var err error
			if deliveries, err = deliveriesPerJob(m.Queue); err != nil {
				return err
			}
		}
	}
	for i := range s.Rows {
		r := &s.Rows[i] // by index: a Row's counters are 89 KB
		a := attempts
		if r.OwnStrategy { // no bound
			a = 0
		}
		if err := r.Counters.Check(s.Steps, a, deliveries); err != nil {
			return fmt.Errorf("rows[%d].%w", i, err)
		}
	}
	return s.checkRun()
}

// checkRun refuses what every run's shard has otherwise: jobs, probabilities, one replicate, a generator
// and an engine, names CheckName takes, and rows that each name their strategy and count the slice's jobs.
func (s Shard) checkRun() error {
	switch {
	case s.Jobs < 1 || s.Jobs > limits.MaxJobs:
		return fmt.Errorf("jobs: %d is not a whole number from 1 to %d", s.Jobs, int64(limits.MaxJobs))
	case !(s.PFail >= 0 && s.PFail <= 1):
		return fmt.Errorf("p_fail: %v is not a probability in [0, 1]", s.PFail)
	case !(s.LostReply >= 0 && s.LostReply <= 1):
		return fmt.Errorf("lost_reply: %v is not a probability in [0, 1]", s.LostReply)
	case s.Replicates != 1:
		return fmt.Errorf("replicates: %d, but a shard holds one replicate", s.Replicates)
	case s.RNG == "":
		return errors.New("rng: missing; a shard names its generator")
	case s.Engine == "":
		return errors.New("engine: missing; a shard names its engine")
	}
	type text struct{ path, v string }
	names := []text{{"scenario", s.Scenario}}
	if m := s.Model; m != nil {
		names = append(names, text{"model.name", m.Name}, text{"model.noun", m.Noun})
		for i, st := range m.Steps {
			names = append(names, text{fmt.Sprintf("model.steps[%d].name", i), st.Name})
		}
		for i, w := range m.Watched {
			names = append(names, text{fmt.Sprintf("model.watched[%d].label", i), w.Label})
		}
	}
	for _, n := range names {
		if err := CheckName(n.v); err != nil {
			return fmt.Errorf("%s: %w", n.path, err)
		}
	}
	for i := range s.Rows {
		r := &s.Rows[i]
		for _, f := range []struct{ name, v string }{{"strategy", r.ID}, {"label", r.Label}} {
			if f.v == "" {
				return fmt.Errorf("rows[%d].%s: missing; every row names its strategy", i, f.name)
			}
			if err := CheckName(f.v); err != nil {
				return fmt.Errorf("rows[%d].%s: %w", i, f.name, err)
			}
		}
		switch {
		case s.Count == 1 && r.Jobs != s.Jobs:
			return fmt.Errorf("rows[%d].jobs: %d, but slice 0/1 of %d jobs holds %d", i, r.Jobs, s.Jobs, s.Jobs)
		case r.Jobs > s.Jobs:
			return fmt.Errorf("rows[%d].jobs: %d is more than the run's %d", i, r.Jobs, s.Jobs)
		case r.Jobs != s.Rows[0].Jobs:
			return fmt.Errorf("rows[%d].jobs: %d, but rows[0] holds %d; every strategy runs the slice's jobs", i, r.Jobs, s.Rows[0].Jobs)
		}
	}
	return nil
}

// checkAttempts refuses attempts that are not the run's: at least 1 when a row is a strategy.Retry, else 0.
func (s Shard) checkAttempts() error {
	retry := -1
	for i := range s.Rows { // not slices.IndexFunc, which copies each 89 KB row
		if !s.Rows[i].OwnStrategy {
			retry = i
			break
		}
	}
	switch {
	case retry >= 0 && s.Attempts == 0:
		return fmt.Errorf("attempts: 0, but rows[%d] is a strategy.Retry, which makes at least 1", retry)
	case retry < 0 && s.Attempts != 0:
		return fmt.Errorf("attempts: %d, but every row is a strategy that sets its own limits (own_strategy), and no strategy.Retry", s.Attempts)
	}
	return nil
}

// printableText refuses a control character in any text of v a shard file carries, naming the field
// by its path (model.steps[1].keys), so a field added later is checked too.
func printableText(v reflect.Value, path string) error {
	if v.Type() == reflect.TypeFor[Settings]() {
		s := v.Interface().(Settings)
		for _, x := range s {
			if err := CheckText(x.Key); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			switch v := x.Value.(type) {
			case string:
				if err := CheckText(v); err != nil {
					return fmt.Errorf("%s.%s: %w", path, x.Key, err)
				}
			case Settings: // a step's backoff
				if err := printableText(reflect.ValueOf(v), path+"."+x.Key); err != nil {
					return err
				}
			}
		}
		return nil
	}
	switch v.Kind() {
	case reflect.String:
		if err := CheckText(v.String()); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			return printableText(v.Elem(), path)
		}
	case reflect.Slice, reflect.Array:
		if k := v.Type().Elem().Kind(); k >= reflect.Int && k <= reflect.Float64 { // the counters: nothing to read
			return nil
		}
		for i := range v.Len() {
			if err := printableText(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" { // not in the file
				continue
			}
			p := path
			if !f.Anonymous { // an embedded struct's fields are its parent's
				if p != "" {
					p += "."
				}
				p += name
			}
			if err := printableText(v.Field(i), p); err != nil {
				return err
			}
		}
	}
	return nil
}

// Check reports, naming its field, the first counter of c that no run of steps steps could have
// produced, when a retry allows attempts calls and, in the delivery model, a job gets at most
// deliveries deliveries (0 for a Part 5 run): the bounds hold for sums over any jobs, none included.
// Attempts 0 stands for a strategy that sets its own limits, of which only what holds for every
// strategy is checked.
func (c *Counters) Check(steps, attempts int, deliveries int64) error {
	queue := deliveries > 0
	type field struct {
		name string
		v    int64
	}
	fields := []field{{"jobs", c.Jobs}, {"failed", c.Failed}, {"calls", c.Calls}, {"repeated_steps", c.RepeatedSteps}, {"duplicate_users", c.DuplicateUsers}, {"side_effects", c.SideEffects}}
	if queue {
		fields = append(fields, field{"deliveries", c.Deliveries}, field{"lost_work", c.LostWork})
	}
	for _, f := range fields {
		if f.v < 0 {
			return fmt.Errorf("%s: %d is negative", f.name, f.v)
		}
	}
	// Only the delivery model counts these; a Part 5 run leaves them zero.
	if !queue && (c.Deliveries != 0 || c.LostWork != 0 || c.Completion != (hist.Histogram{}) || c.FailedCompletion != (hist.Histogram{})) {
		return errors.New("deliveries, lost_work, completion, failed_completion: not zero in a run without the delivery model")
	}
	maxCalls := int64(math.MaxInt64) // for attempts 0, or on overflow
	if attempts > 0 {
		maxCalls = mulSat(mulSat(int64(steps), int64(attempts)), max(deliveries, 1))
	}
	own := attempts == 0
	jobs := big.NewInt(c.Jobs)
	perStep := big.NewInt(int64(steps))
	// Side effects less repeats are the (job, step) pairs whose work was done.
	done := c.SideEffects - c.RepeatedSteps
	callsWhy, doneWhy := "", ""
	if !queue {
		callsWhy, doneWhy = fmt.Sprintf(" (%d steps x %d attempts)", steps, attempts), fmt.Sprintf(" (%v)", new(big.Int).Mul(jobs, perStep))
	}
	switch {
	case c.Failed > c.Jobs:
		return fmt.Errorf("failed: %d is more than the %d jobs", c.Failed, c.Jobs)
	case queue && c.LostWork > c.Jobs-c.Failed:
		return fmt.Errorf("lost_work: %d is more than the %d jobs that succeeded", c.LostWork, c.Jobs-c.Failed)
	case c.DuplicateUsers > c.Jobs:
		return fmt.Errorf("duplicate_users: %d is more than the %d jobs", c.DuplicateUsers, c.Jobs)
	case !queue && !own && c.Calls < c.Jobs:
		return fmt.Errorf("calls: %d is fewer than one call for each of the %d jobs", c.Calls, c.Jobs)
	case queue && c.Deliveries < c.Jobs:
		return fmt.Errorf("deliveries: %d is fewer than one for each of the %d jobs", c.Deliveries, c.Jobs)
	case queue && over(c.Deliveries, deliveries, c.Jobs):
		return fmt.Errorf("deliveries: %d is more than %d jobs get at %d deliveries each", c.Deliveries, c.Jobs, deliveries)
	case over(c.Calls, maxCalls, c.Jobs):
		return fmt.Errorf("calls: %d is more than %d jobs make at %d calls each%s", c.Calls, c.Jobs, maxCalls, callsWhy)
	case c.SideEffects > c.Calls:
		return fmt.Errorf("side_effects: %d is more than the %d calls, each of which does the work at most once", c.SideEffects, c.Calls)
	case c.RepeatedSteps > c.SideEffects:
		return fmt.Errorf("repeated_steps: %d is more than the %d side effects", c.RepeatedSteps, c.SideEffects)
	case c.DuplicateUsers > c.RepeatedSteps:
		return fmt.Errorf("duplicate_users: %d is more than the %d repeated side effects", c.DuplicateUsers, c.RepeatedSteps)
	case over(done, int64(steps), c.Jobs):
		return fmt.Errorf("side_effects: %d, less %d repeated, is more than one a step of each job%s", c.SideEffects, c.RepeatedSteps, doneWhy)
	}
	if lo := new(big.Int).Mul(big.NewInt(c.Jobs-c.Failed), perStep); !queue && !own && big.NewInt(done).Cmp(lo) < 0 {
		return fmt.Errorf("side_effects: %d, less %d repeated, is fewer than the %v steps of the %d jobs that succeeded", c.SideEffects, c.RepeatedSteps, lo, c.Jobs-c.Failed)
	}
	for _, h := range []struct {
		name string
		h    *hist.Histogram
		want int64
	}{{"completion", &c.Completion, c.Jobs - c.Failed}, {"failed_completion", &c.FailedCompletion, c.Failed}} {
		if n := h.h.Count(); queue && n != h.want { // its counts are positive, their sum within 64 bits
			return fmt.Errorf("%s: its counts add up to %d, not the %d jobs it times", h.name, n, h.want)
		}
	}
	if err := checkSquares(c.Calls, c.CallsSq, c.Jobs, maxCalls); err != nil {
		return fmt.Errorf("calls_sq: %w", err)
	}
	if err := checkSquares(c.RepeatedSteps, c.RepeatedSq, c.Jobs, maxCalls-1); err != nil {
		return fmt.Errorf("repeated_steps_sq: %w", err)
	}
	return c.checkByStep(steps)
}

// checkByStep refuses by-step counts that do not split c's totals.
func (c *Counters) checkByStep(steps int) error {
	var sum int64
	for i := range c.RepeatedByStep {
		r, t := c.RepeatedByStep[i], c.TwiceByStep[i]
		switch {
		case r < 0:
			return fmt.Errorf("repeated_by_step[%d]: %d is negative", i, r)
		case t < 0:
			return fmt.Errorf("twice_by_step[%d]: %d is negative", i, t)
		case i >= steps && (r != 0 || t != 0):
			return fmt.Errorf("repeated_by_step[%d], twice_by_step[%d]: not zero past the %d steps", i, i, steps)
		case t > r:
			return fmt.Errorf("twice_by_step[%d]: %d jobs are more than the step's %d repeated side effects", i, t, r)
		case t > c.Jobs:
			return fmt.Errorf("twice_by_step[%d]: %d is more than the %d jobs", i, t, c.Jobs)
		}
		var ok bool
		if sum, ok = addInt64(sum, r); !ok {
			return fmt.Errorf("repeated_by_step: the sum overflows a 64-bit counter")
		}
	}
	if sum != c.RepeatedSteps {
		return fmt.Errorf("repeated_by_step: the steps' %d add up to other than repeated_steps %d", sum, c.RepeatedSteps)
	}
	return nil
}

// checkSquares refuses a sum of squares sq that n whole numbers from 0 to hi adding up to sum
// cannot have: sum^2/n <= sq, sum <= sq, sq <= hi x sum and sq <= sum^2.
func checkSquares(sum int64, sq Wide, n, hi int64) error {
	s, q := big.NewInt(sum), sq.big()
	s2 := new(big.Int).Mul(s, s)
	switch {
	case new(big.Int).Mul(q, big.NewInt(n)).Cmp(s2) < 0:
		return fmt.Errorf("%v is less than the square of the sum %d over the %d jobs", sq, sum, n)
	case q.Cmp(s) < 0:
		return fmt.Errorf("%v is less than the sum %d of whole numbers", sq, sum)
	case q.Cmp(s2) > 0:
		return fmt.Errorf("%v is more than the square of the sum %d", sq, sum)
	case q.Cmp(new(big.Int).Mul(s, big.NewInt(hi))) > 0:
		return fmt.Errorf("%v is more than %d x the sum %d, %d being the most a job can count", sq, hi, sum, hi)
	}
	return nil
}

// mulSat is a x b for a, b >= 0, or math.MaxInt64 if that overflows.
func mulSat(a, b int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(lo)
}

// AddChecked adds o to c as Add does, but refuses, leaving c as it was, a sum that overflows.
func (c *Counters) AddChecked(o *Counters) error {
	type term struct {
		name string
		dst  *int64
		x    int64
	}
	sum := *c
	terms := []term{
		{"jobs", &sum.Jobs, o.Jobs}, {"failed", &sum.Failed, o.Failed}, {"calls", &sum.Calls, o.Calls},
		{"repeated_steps", &sum.RepeatedSteps, o.RepeatedSteps}, {"duplicate_users", &sum.DuplicateUsers, o.DuplicateUsers},
		{"side_effects", &sum.SideEffects, o.SideEffects}, {"deliveries", &sum.Deliveries, o.Deliveries}, {"lost_work", &sum.LostWork, o.LostWork},
	}
	for i := range sum.RepeatedByStep {
		terms = append(terms, term{fmt.Sprintf("repeated_by_step[%d]", i), &sum.RepeatedByStep[i], o.RepeatedByStep[i]},
			term{fmt.Sprintf("twice_by_step[%d]", i), &sum.TwiceByStep[i], o.TwiceByStep[i]})
	}
	for _, t := range terms {
		s, ok := addInt64(*t.dst, t.x)
		if !ok {
			return fmt.Errorf("%s: %d + %d overflows a 64-bit counter", t.name, *t.dst, t.x)
		}
		*t.dst = s
	}
	for _, t := range []struct {
		name string
		dst  *Wide
		x    Wide
	}{{"calls_sq", &sum.CallsSq, o.CallsSq}, {"repeated_steps_sq", &sum.RepeatedSq, o.RepeatedSq}} {
		before := *t.dst
		if t.dst.Add(t.x) != 0 {
			return fmt.Errorf("%s: %v + %v overflows 128 bits", t.name, before, t.x)
		}
	}
	for _, h := range []struct {
		name   string
		dst, x *hist.Histogram
	}{{"completion", &sum.Completion, &o.Completion}, {"failed_completion", &sum.FailedCompletion, &o.FailedCompletion}} {
		if err := h.dst.Merge(h.x); err != nil {
			return fmt.Errorf("%s: %w", h.name, err)
		}
	}
	*c = sum
	return nil
}

// formatError refuses a shard of format f.
func formatError(f int) error {
	if f > 0 && f < ShardFormat {
		return fmt.Errorf("retrysim_shard: format %d was written by an older retrysim; this one reads format %d only (its completion histograms changed): run the shard again", f, ShardFormat)
	}
	return fmt.Errorf("retrysim_shard: %d is not a shard format this retrysim reads (%d)", f, ShardFormat)
}

// addInt64 is a + b and whether it fits in an int64.
func addInt64(a, b int64) (int64, bool) {
	s := a + b
	return s, (s > a) == (b > 0)
}

// exactly decodes the JSON array b into dst, which it must fill exactly.
func exactly(b []byte, dst []int64, what string) error {
	var xs []int64
	if err := json.Unmarshal(b, &xs); err != nil {
		return err
	}
	if len(xs) != len(dst) {
		return fmt.Errorf("%d %s where there are %d", len(xs), what, len(dst))
	}
	copy(dst, xs)
	return nil
}
