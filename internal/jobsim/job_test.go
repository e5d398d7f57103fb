package jobsim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/provider"
)

// fixed is a Source that returns the given fractions, then repeats the last.
type fixed []float64

func (f *fixed) Fill(dst []uint64) {
	for i := range dst {
		x := (*f)[0]
		if len(*f) > 1 {
			*f = (*f)[1:]
		}
		dst[i] = uint64(x * (1 << 63) * 2)
	}
}

func TestCallDrawsAndSideEffects(t *testing.T) {
	sc := provider.Scenario{
		Steps: []provider.Step{
			{Name: "plain", PFail: 0.5},
			{Name: "email", PFail: 0.5, CanLoseReply: true, LostReply: 0.5, HonoursKeys: true},
		},
		Watched: []provider.Watch{{Step: 1}},
	}
	tests := []struct {
		name    string
		draws   []float64
		calls   func(j *Job) []provider.Reply
		want    []provider.Reply
		done    [2]uint32
		repeats int64
		twice   bool
		used    int64
	}{
		{
			name:  "a failed call does nothing and draws once",
			draws: []float64{0.1, 0.9},
			calls: func(j *Job) []provider.Reply { return []provider.Reply{j.Call(0, provider.NoKey)} },
			want:  []provider.Reply{provider.ReplyError}, used: 1,
		},
		{
			name:  "a lost reply does the work, errors, and draws twice",
			draws: []float64{0.9, 0.1, 0.9},
			calls: func(j *Job) []provider.Reply { return []provider.Reply{j.Call(1, provider.NoKey)} },
			want:  []provider.Reply{provider.NoReply}, done: [2]uint32{0, 1}, used: 2,
		},
		{
			name:  "no key: the retry sends again",
			draws: []float64{0.9, 0.1, 0.9, 0.9},
			calls: func(j *Job) []provider.Reply {
				return []provider.Reply{j.Call(1, provider.NoKey), j.Call(1, provider.NoKey)}
			},
			want: []provider.Reply{provider.NoReply, provider.ReplyOK}, done: [2]uint32{0, 2}, repeats: 1, twice: true, used: 4,
		},
		{
			name:  "the same key: the provider does the work once",
			draws: []float64{0.9, 0.1, 0.9, 0.9},
			calls: func(j *Job) []provider.Reply { return []provider.Reply{j.Call(1, 7), j.Call(1, 7)} },
			want:  []provider.Reply{provider.NoReply, provider.ReplyOK}, done: [2]uint32{0, 1}, used: 4,
		},
		{
			name:  "a key the provider saw only on a failed call is new",
			draws: []float64{0.1, 0.9, 0.9},
			calls: func(j *Job) []provider.Reply { return []provider.Reply{j.Call(1, 7), j.Call(1, 7)} },
			want:  []provider.Reply{provider.ReplyError, provider.ReplyOK}, done: [2]uint32{0, 1}, used: 3,
		},
		{
			name:  "a provider that ignores keys repeats the work",
			draws: []float64{0.9},
			calls: func(j *Job) []provider.Reply { return []provider.Reply{j.Call(0, 7), j.Call(0, 7)} },
			want:  []provider.Reply{provider.ReplyOK, provider.ReplyOK}, done: [2]uint32{2, 0}, repeats: 1, used: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := fixed(tt.draws)
			stream := rng.NewStream(&src)
			j := New(sc, stream)
			got := tt.calls(j)
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("call %d = %v; want %v", i, got[i], tt.want[i])
				}
			}
			if d := [2]uint32{j.Done(0), j.Done(1)}; d != tt.done {
				t.Errorf("side effects = %v; want %v", d, tt.done)
			}
			if twice := j.DoneBySteps()[1] > 1; j.Repeated() != tt.repeats || twice != tt.twice {
				t.Errorf("Repeated() = %d, email twice = %v; want %d, %v", j.Repeated(), twice, tt.repeats, tt.twice)
			}
			if j.Calls() != int64(len(got)) || stream.Draws() != tt.used {
				t.Errorf("calls %d, draws %d; want %d, %d", j.Calls(), stream.Draws(), len(got), tt.used)
			}
			j.Reset()
			if j.Done(0)+j.Done(1) != 0 || j.Calls() != 0 || j.Repeated() != 0 || len(j.seen) != 0 {
				t.Errorf("Reset left state behind")
			}
		})
	}
}

func TestCleanCutsInDrawOrder(t *testing.T) {
	j := New(provider.Signup(0.01, 0.005), rng.NewStream(rng.NewMulberry32(1)))
	cuts := j.Clean()
	if len(cuts) != 11 {
		t.Fatalf("len(Clean()) = %d; want 11 (ten failure draws and the email's reply draw)", len(cuts))
	}
	if cuts[7] != rng.Threshold(0.005) || cuts[6] != rng.Threshold(0.01) || cuts[10] != rng.Threshold(0.01) {
		t.Errorf("Clean() = %v; want the email's reply cut right after its failure cut", cuts)
	}
}

// constant is a math/rand/v2 Source that always returns v.
type constant uint64

func (c constant) Uint64() uint64 { return uint64(c) }

// A Job draws from any math/rand/v2 Source: from one that always returns
// the largest value, no call fails and no reply is lost (each draw is at or
// above its cut); from one that always returns 0, every call fails before
// its work (each draw is below a failure cut above 0).
func TestJobDrawsFromARandSource(t *testing.T) {
	sc := provider.Signup(0.01, 0.005)
	for _, c := range []struct {
		src     rand.Source
		reply   provider.Reply
		effects int64
	}{{constant(math.MaxUint64), provider.ReplyOK, 1}, {constant(0), provider.ReplyError, 0}} {
		j := New(sc, c.src)
		for i := range j.Steps() {
			got := j.Call(i, provider.NoKey)
			if got != c.reply || int64(j.Done(i)) != c.effects {
				t.Errorf("source %v, step %d: call %v with %d side effects; want %v and %d", c.src, i, got, j.Done(i), c.reply, c.effects)
			}
		}
		if j.Calls() != int64(j.Steps()) {
			t.Errorf("source %v: %d calls; want %d", c.src, j.Calls(), j.Steps())
		}
	}
}
