package stats

import (
	"encoding/json"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/internal/hist"
)

// endless is a reader that never ends: an opening brace, then spaces.
type endless struct{ read int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	if e.read == 0 {
		p[0] = '{'
	}
	e.read += int64(len(p))
	return len(p), nil
}

// A file that never ends (/dev/zero, a stream of spaces) is refused having
// read no more than MaxShardBytes and one byte.
func TestReadShardStopsAtTheLimit(t *testing.T) {
	var e endless
	_, err := ReadShard(&e)
	if err == nil || !strings.Contains(err.Error(), "larger than the 24 MiB a shard may be") {
		t.Errorf("ReadShard(endless) = %v; want larger than the 24 MiB", err)
	}
	if e.read > MaxShardBytes+1 {
		t.Errorf("ReadShard read %d bytes of an endless file; want at most %d", e.read, MaxShardBytes+1)
	}
	var zeros io.Reader = io.LimitReader(zeroReader{}, 10<<20)
	if _, err := ReadShard(zeros); err == nil {
		t.Error("ReadShard(zeros) = nil error")
	}
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// Sums that overflow are refused, naming the counter, and leave the sum as it was.
func TestAddCheckedRefusesOverflow(t *testing.T) {
	histogram := func(bucket int, n int64) hist.Histogram {
		var h hist.Histogram
		if err := h.SetBuckets([]hist.Bucket{{Index: bucket, Count: n}}); err != nil {
			t.Fatal(err)
		}
		return h
	}
	tests := []struct {
		name string
		a, b Counters
		want string
	}{
		{"failed", Counters{Failed: math.MaxInt64}, Counters{Failed: 1}, "failed: 9223372036854775807 + 1 overflows a 64-bit counter"},
		{"negative", Counters{Calls: math.MinInt64}, Counters{Calls: -1}, "calls: -9223372036854775808 + -1 overflows"},
		{"histogram", Counters{Completion: histogram(3, math.MaxInt64-1)}, Counters{Completion: histogram(3, 2)}, "completion: histogram: 9223372036854775806 + 2 durations overflow a 64-bit count"},
		{"squares", Counters{CallsSq: Wide{Hi: math.MaxUint64}}, Counters{CallsSq: Wide{Hi: 1}}, "calls_sq: 340282366920938463444927863358058659840 + 18446744073709551616 overflows 128 bits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.a
			err := c.AddChecked(&tt.b)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("AddChecked = %v; want %q", err, tt.want)
			}
			if c != tt.a {
				t.Errorf("AddChecked changed the sum to %+v after refusing", c)
			}
		})
	}
	// At the edge, no overflow: 2^63-2 + 1, and a carry into the high word.
	c := Counters{Jobs: math.MaxInt64 - 1, CallsSq: Wide{Lo: math.MaxUint64}}
	if err := c.AddChecked(&Counters{Jobs: 1, CallsSq: Wide{Lo: 1}}); err != nil || c.Jobs != math.MaxInt64 || c.CallsSq != (Wide{Hi: 1}) {
		t.Errorf("AddChecked at the edge = %v, jobs %d, calls_sq %v; want nil, 2^63-1, 2^64", err, c.Jobs, c.CallsSq)
	}
}

// Check's bounds, each at its edge, for jobs of 2 steps and 3 attempts (at
// most 6 calls a job): the edge passes, one past it does not.
func TestCountersCheckEdges(t *testing.T) {
	// Two jobs, one failed: calls 1 + 6, the success did both steps (2
	// effects, none repeated), the failure 5 effects on one step (4 repeats).
	ok := Counters{Jobs: 2, Failed: 1, Calls: 7, SideEffects: 7, RepeatedSteps: 4, DuplicateUsers: 1,
		CallsSq: Wide{Lo: 1*1 + 6*6}, RepeatedSq: Wide{Lo: 4 * 4},
		RepeatedByStep: StepCounts{4}, TwiceByStep: StepCounts{1}}
	if err := ok.Check(2, 3, 0); err != nil {
		t.Fatalf("Check(%+v) = %v; want nil", ok, err)
	}
	tests := []struct {
		name string
		edit func(c *Counters)
		want string
	}{
		{"calls over 6 a job", func(c *Counters) { c.Calls, c.CallsSq = 13, Wide{Lo: 6*6 + 7*7} }, "calls: 13 is more than 2 jobs make at 6 calls each"},
		{"failed over jobs", func(c *Counters) { c.Failed = 3 }, "failed: 3 is more than the 2 jobs"},
		{"by step not the total", func(c *Counters) { c.RepeatedByStep[0] = 3 }, "repeated_by_step: the steps' 3 add up to other than repeated_steps 4"},
		{"by step past the steps", func(c *Counters) { c.RepeatedByStep[0], c.RepeatedByStep[2] = 3, 1 }, "repeated_by_step[2], twice_by_step[2]: not zero past the 2 steps"},
		{"twice over the step's repeats", func(c *Counters) { c.RepeatedByStep = StepCounts{2, 2}; c.TwiceByStep[1] = 3 }, "twice_by_step[1]: 3 jobs are more than the step's 2 repeated side effects"},
		{"twice over jobs", func(c *Counters) { c.TwiceByStep[0] = 3 }, "twice_by_step[0]: 3 is more than the 2 jobs"},
		{"negative by step", func(c *Counters) { c.RepeatedByStep = StepCounts{5, -1} }, "repeated_by_step[1]: -1 is negative"},
		{"steps done over 2 a job", func(c *Counters) { c.SideEffects, c.RepeatedSteps, c.RepeatedSq = 7, 2, Wide{Lo: 4} }, "side_effects: 7, less 2 repeated, is more than one a step of each job (4)"},
		{"success without its steps", func(c *Counters) { c.Failed = 0 }, "is fewer than the 4 steps of the 2 jobs that succeeded"},
		// 7 calls over 2 jobs: at least 3^2 + 4^2 = 25 squared, at most 1 + 36 = 37.
		{"squares under the spread", func(c *Counters) { c.CallsSq = Wide{Lo: 24} }, "calls_sq: 24 is less than the square of the sum 7 over the 2 jobs"},
		{"squares over the bound", func(c *Counters) { c.CallsSq = Wide{Lo: 43} }, "calls_sq: 43 is more than 6 x the sum 7"},
		{"repeats squared past 5 a job", func(c *Counters) { c.RepeatedSq = Wide{Lo: 21} }, "repeated_steps_sq: 21 is more than the square of the sum 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ok
			tt.edit(&c)
			if err := c.Check(2, 3, 0); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Check = %v; want %q", err, tt.want)
			}
		})
	}
	// The spread's edge itself (3 and 4 calls, 25 squared) and the bound's (6 x 7 = 42) pass.
	for _, sq := range []uint64{25, 37} {
		c := ok
		c.CallsSq = Wide{Lo: sq}
		if err := c.Check(2, 3, 0); err != nil {
			t.Errorf("calls_sq %d: Check = %v; want nil", sq, err)
		}
	}
}

// Check says where a Part 5 bound comes from, and a delivery model's bound
// as it is: the same bound, two messages.
func TestCheckBoundMessagesByModel(t *testing.T) {
	calls := Counters{Jobs: 1, Calls: 7, SideEffects: 7, CallsSq: Wide{Lo: 49}}
	steps := Counters{Jobs: 1, Calls: 3, SideEffects: 3, CallsSq: Wide{Lo: 9}}
	for _, tt := range []struct {
		c          Counters
		deliveries int64
		want       string
	}{
		{calls, 0, "calls: 7 is more than 1 jobs make at 6 calls each (2 steps x 3 attempts)"},
		{calls, 1, "calls: 7 is more than 1 jobs make at 6 calls each"},
		{steps, 0, "side_effects: 3, less 0 repeated, is more than one a step of each job (2)"},
		{steps, 1, "side_effects: 3, less 0 repeated, is more than one a step of each job"},
	} {
		tt.c.Deliveries = tt.deliveries
		if err := tt.c.Check(2, 3, tt.deliveries); err == nil || err.Error() != tt.want {
			t.Errorf("Check(2, 3, %d) of %+v = %v; want %q", tt.deliveries, tt.c, err, tt.want)
		}
	}
}

// MaxShardRows rows of the largest a row can be, every counter at 2^63-1,
// every sum of squares at 2^128-1 and every bucket of both histograms
// counting, fit in MaxShardBytes as -shard writes
// them (indented json), with the longest parameters.
func TestMaxShardRowsFit(t *testing.T) {
	max := int64(math.MaxInt64)
	c := Counters{Jobs: max, Failed: max, Calls: max, RepeatedSteps: max, DuplicateUsers: max, SideEffects: max,
		Deliveries: max, LostWork: max, CallsSq: Wide{math.MaxUint64, math.MaxUint64}, RepeatedSq: Wide{math.MaxUint64, math.MaxUint64}}
	for i := range c.RepeatedByStep {
		c.RepeatedByStep[i] = max
	}
	// Every bucket counts, as much as a histogram's 64-bit total allows.
	bs := make([]hist.Bucket, hist.HistogramBuckets)
	for i := range bs {
		bs[i] = hist.Bucket{Index: i, Count: max / hist.HistogramBuckets}
	}
	if err := c.Completion.SetBuckets(bs); err != nil {
		t.Fatal(err)
	}
	c.FailedCompletion = c.Completion
	sh := Shard{Format: ShardFormat, Index: math.MaxInt, Count: math.MaxInt, Params: Params{
		Scenario: strings.Repeat("s", 100), File: strings.Repeat("f", 4096), Steps: MaxSteps, Jobs: max,
		PFail: 0.1234567890123456, LostReply: 0.1234567890123456, Attempts: math.MaxInt, RNG: "mulberry32",
		Seed: math.MaxUint64, Engine: "plain", Replicates: math.MaxInt,
	}}
	// The longest label: "Retry the whole job, new key on every call, skip finished steps".
	row := Row{ID: "step-samekey-skip", Label: strings.Repeat("x", 70), Counters: c}
	for range MaxShardRows {
		sh.Rows = append(sh.Rows, row)
	}
	out, err := json.MarshalIndent(sh, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if len(out) >= MaxShardBytes {
		t.Errorf("%d rows of the largest counters take %d bytes; want under MaxShardBytes, %d", MaxShardRows, len(out), MaxShardBytes)
	}
	// One row more is the row's size, which MaxShardBytes's doc states.
	sh.Rows = append(sh.Rows, row)
	more, err := json.MarshalIndent(sh, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if size := len(more) - len(out); size > 706_000 {
		t.Errorf("the largest row takes %d bytes; MaxShardBytes's doc says at most 706 KB", size)
	}
}

// A shard of format 2, whose completion histograms held 256 counts, 20 a
// decade, is refused saying it was written by an older retrysim, before
// its rows are read (which would fail on the old histograms).
func TestReadShardRefusesAnOlderFormat(t *testing.T) {
	old := `{"retrysim_shard": 2, "shard_index": 0, "shard_count": 1, "rows": [{"completion": [0, 0, 0]}]}`
	_, err := ReadShard(strings.NewReader(old))
	want := "retrysim_shard: format 2 was written by an older retrysim; this one reads format 3 only (its completion histograms changed): run the shard again"
	if err == nil || err.Error() != want {
		t.Errorf("ReadShard(format 2) = %v; want %q", err, want)
	}
}
