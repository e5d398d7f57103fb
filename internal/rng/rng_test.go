package rng

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The design pins the first four draws of the article's generator for seed 1.
func TestMulberry32FirstDraws(t *testing.T) {
	want := []uint32{2693262067, 11749833, 2265367787, 4213581821}
	m := NewMulberry32(1)
	for i, w := range want {
		if got := m.Next(); got != w {
			t.Errorf("draw %d: Next() = %d; want %d", i, got, w)
		}
	}
	buf := make([]uint64, len(want))
	NewMulberry32(1).Fill(buf)
	for i, w := range want {
		if buf[i] != uint64(w)<<32 {
			t.Errorf("draw %d: Fill = %#x; want %#x", i, buf[i], uint64(w)<<32)
		}
	}
}

// JavaScript keeps a seed's low 32 bits: seededRandom(2**32 + 1) is seededRandom(1).
func TestMulberry32SeedIsLow32Bits(t *testing.T) {
	a, b := NewMulberry32(1<<32+1), NewMulberry32(1)
	for i := range 10 {
		if x, y := a.Next(), b.Next(); x != y {
			t.Fatalf("draw %d: seed 2^32+1 gives %d, seed 1 gives %d", i, x, y)
		}
	}
}

// Threshold must agree with the float comparison the generators' own APIs make:
// x/2^32 < p for mulberry32, and Float64() < p (53 bits) for the PCGs.
func TestThresholdAgreesWithFloatComparison(t *testing.T) {
	probs := []float64{0, math.SmallestNonzeroFloat64, 0x1p-64, 0x1p-33, 0.001, 0.005, 0.01, 0.3, 0.5, 1 - 0x1p-53, 1}
	r := rand.New(rand.NewPCG(7, 8))
	for _, p := range probs {
		cut := Threshold(p)
		// 32-bit draws near the boundary and at random.
		edge := uint32(math.Min(math.Floor(p*(1<<32)), math.MaxUint32))
		xs := []uint32{0, 1, edge - 1, edge, edge + 1, math.MaxUint32}
		for range 1000 {
			xs = append(xs, r.Uint32())
		}
		for _, x := range xs {
			want := float64(x)/(1<<32) < p
			if got := uint64(x)<<32 < cut; got != want {
				t.Errorf("p=%v x=%d: below = %v; want %v", p, x, got, want)
			}
		}
		// 53-bit draws.
		edge53 := uint64(math.Min(math.Floor(p*(1<<53)), 1<<53-1))
		us := []uint64{0, 1, edge53 - 1, edge53, edge53 + 1, 1<<53 - 1}
		for range 1000 {
			us = append(us, r.Uint64()>>11)
		}
		for _, u := range us {
			u &= 1<<53 - 1
			want := float64(u)/(1<<53) < p
			if got := u<<11 < cut; got != want {
				t.Errorf("p=%v u=%d: below = %v; want %v", p, u, got, want)
			}
		}
	}
}

// The pcg stream is math/rand/v2's Float64 on the derived seeds, exactly.
func TestPCGMatchesMathRandFloat64(t *testing.T) {
	for _, block := range []uint64{0, 1, 99} {
		s := mix(42 ^ mix(block))
		want := rand.New(rand.NewPCG(s, mix(s)))
		src := pcgGenerator.New(42, block)
		buf := make([]uint64, 100)
		src.Fill(buf)
		for i, u := range buf {
			if got, w := float64(u)/(1<<64), want.Float64(); got != w {
				t.Fatalf("block %d draw %d: %v; want %v", block, i, got, w)
			}
		}
	}
}

func TestBlocksAreDistinctStreams(t *testing.T) {
	for _, g := range Generators() {
		a, b := make([]uint64, 8), make([]uint64, 8)
		g.New(1, 0).Fill(a)
		g.New(1, 1).Fill(b)
		same := a[0] == b[0] && a[1] == b[1]
		if same != g.Sequential {
			t.Errorf("%s: blocks 0 and 1 start alike = %v; want %v (sequential generators ignore the block)", g.Name, same, g.Sequential)
		}
	}
}

// However draws are taken (one by one, or peeked and skipped across buffer
// boundaries), the sequence and the count are the same.
func TestStreamSequenceIndependentOfReads(t *testing.T) {
	const n = 5000
	want := make([]uint64, n)
	NewMulberry32(9).Fill(want)
	s := NewStream(NewMulberry32(9))
	r := rand.New(rand.NewPCG(1, 2))
	i := 0
	for i < n-200 {
		if r.IntN(2) == 0 {
			if got := s.Next(); got != want[i] {
				t.Fatalf("Next at %d = %#x; want %#x", i, got, want[i])
			}
			i++
			continue
		}
		k := 1 + r.IntN(130)
		d := s.Peek(k)
		for j := range k {
			if d[j] != want[i+j] {
				t.Fatalf("Peek(%d) at %d+%d = %#x; want %#x", k, i, j, d[j], want[i+j])
			}
		}
		if r.IntN(2) == 0 {
			s.Skip(k)
			i += k
		}
		if got := s.Draws(); got != int64(i) {
			t.Fatalf("Draws() = %d; want %d", got, i)
		}
	}
}

func TestLookup(t *testing.T) {
	for _, name := range []string{"pcg", "mulberry32", "xexp"} {
		if g, ok := Lookup(name); !ok || g.Name != name {
			t.Errorf("Lookup(%q) = %q, %v; want found", name, g.Name, ok)
		}
	}
	if _, ok := Lookup("mt19937"); ok {
		t.Errorf("Lookup(mt19937) found a generator; want none")
	}
	if got, want := Names(), "pcg, mulberry32, xexp"; got != want {
		t.Errorf("Names() = %q; want %q", got, want)
	}
}

// UnreadEvent(k) leaves a stream as Unread of k-1 MaxUint64s and a 0 does,
// wherever the stream stands in its buffer (k past the draws taken shifts the
// buffer): the next draws and the count are the same, for two streams of one
// source taken alike.
func TestUnreadEventIsUnread(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	a, b := NewStream(NewMulberry32(5)), NewStream(NewMulberry32(5))
	for range 2000 {
		for range r.IntN(40) {
			if x, y := a.Next(), b.Next(); x != y {
				t.Fatalf("Next: %#x and %#x", x, y)
			}
		}
		k := 1 + r.IntN(20)
		vals := make([]uint64, k)
		for i := range k - 1 {
			vals[i] = math.MaxUint64
		}
		a.Unread(vals)
		b.UnreadEvent(k)
		if a.Draws() != b.Draws() || a.next != b.next || a.buf != b.buf {
			t.Fatalf("after Unread and UnreadEvent(%d): draws %d and %d, next %d and %d, buffers differ %t",
				k, a.Draws(), b.Draws(), a.next, b.next, a.buf != b.buf)
		}
	}
}
