package stats

import (
	"fmt"
	"math/big"
	"math/bits"
)

// Wide is an unsigned 128-bit sum: sums of squares outgrow 64 bits, and floats would make the sum
// depend on the order of addition, and so on the number of workers.
type Wide struct {
	Hi, Lo uint64
}

// Add adds o to w and returns the carry out of 128 bits: 0 unless the sum overflows.
func (w *Wide) Add(o Wide) uint64 {
	var carry uint64
	w.Lo, carry = bits.Add64(w.Lo, o.Lo, 0)
	w.Hi, carry = bits.Add64(w.Hi, o.Hi, carry)
	return carry
}

// Float64 is w, rounded.
func (w Wide) Float64() float64 {
	return float64(w.Hi)*(1<<64) + float64(w.Lo)
}

func (w Wide) big() *big.Int {
	b := new(big.Int).SetUint64(w.Hi)
	return b.Lsh(b, 64).Or(b, new(big.Int).SetUint64(w.Lo))
}

// String is w in decimal.
func (w Wide) String() string { return w.big().String() }

// MarshalJSON writes w as a plain JSON number, every digit kept.
func (w Wide) MarshalJSON() ([]byte, error) { return []byte(w.String()), nil }

// UnmarshalJSON reads a JSON number written by MarshalJSON.
func (w *Wide) UnmarshalJSON(b []byte) error {
	n, ok := new(big.Int).SetString(string(b), 10)
	if !ok || n.Sign() < 0 || n.BitLen() > 128 {
		return fmt.Errorf("%s is not a whole number from 0 to 2^128-1", b)
	}
	lo := new(big.Int).And(n, new(big.Int).SetUint64(^uint64(0)))
	w.Lo = lo.Uint64()
	w.Hi = new(big.Int).Rsh(n, 64).Uint64()
	return nil
}
