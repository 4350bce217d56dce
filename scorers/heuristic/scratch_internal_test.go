package heuristic

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestBufPoolLendsZeroedSlices: a lent slice is as make gives it, whatever the last
// borrower left in it, since the scoring code counts on zeros (Exact, matchStart).
func TestBufPoolLendsZeroedSlices(t *testing.T) {
	var bp bufPool[int32]
	for _, n := range []int{5, 3, 8, 0, 8} {
		b := bp.borrow(n)
		assert.Len(t, b, n)
		for i := range b {
			assert.Zero(t, b[i], "element %d of %d", i, n)
			b[i] = int32(7 + i)
		}
		bp.giveBack(b)
	}
}
