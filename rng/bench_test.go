package rng

import "testing"

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
	for _, g := range Generators {
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
