package rng

import (
	"testing"
	"time"
)

var sink uint64

func BenchmarkMulberry32Next(b *testing.B) {
	m := NewMulberry32(1)
	var x uint32
	for b.Loop() {
		x ^= m.Next()
	}
	sink = uint64(x)
}

func BenchmarkFill(b *testing.B) {
	for _, g := range Generators() {
		b.Run(g.Name, func(b *testing.B) {
			src := g.New(1, 0)
			var buf [bufferLen]uint64
			for b.Loop() {
				src.Fill(buf[:])
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/bufferLen, "ns/draw")
		})
	}
}

func BenchmarkStreamNext(b *testing.B) {
	s := NewStream(NewMulberry32(1))
	var x uint64
	for b.Loop() {
		x ^= s.Next()
	}
	sink = x
}

// BenchmarkLognormals measures a job's ten lognormal latencies (σ 0.99: p99
// ten times the median) against taking ten bare draws from the same stream:
// x-draws is what the sampling adds to the generator's cost.
func BenchmarkLognormals(b *testing.B) {
	ls := make([]*Lognormal, 10)
	for i := range ls {
		ls[i] = NewLognormal(0.99)
	}
	dst := make([]float64, len(ls))
	bare := NewStream(pcgGenerator.New(1, 0))
	start := time.Now()
	const rounds = 1_000_000
	var sum uint64
	for range rounds {
		for _, d := range bare.Peek(len(ls)) {
			sum += d
		}
		bare.Skip(len(ls))
	}
	sink = sum
	perBare := float64(time.Since(start).Nanoseconds()) / rounds
	s := NewStream(pcgGenerator.New(1, 0))
	for b.Loop() {
		Lognormals(ls, s, dst)
	}
	per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(per/float64(len(ls)), "ns/variate")
	b.ReportMetric(per/perBare, "x-draws")
}
