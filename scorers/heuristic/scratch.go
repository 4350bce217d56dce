package heuristic

import (
	"math/bits"
	"sync"
)

// Buffers that a scoring call needs only while it runs are lent from pools: a 10,000-line
// log's scoring made 770 KB of garbage a call, half of it in such arrays, and on two cores
// the collector's share of a processor cost the parallel scan much of what it gained.

// bufPool lends slices of T. A slice comes back with the length asked for and every element
// zero, as make would give it. Capacities are powers of two, one pool each, so files of
// many sizes scored in turn reuse their buffers instead of replacing them.
type bufPool[T any] struct{ classes [maxPooledBits + 1]sync.Pool }

// maxPooledBits bounds the slices kept for reuse at 1<<maxPooledBits elements: a rare huge
// input's arrays go to the collector rather than stay in a pool.
const maxPooledBits = 20

func sizeClass(n int) int { return bits.Len(uint(max(n, 1) - 1)) }

func (bp *bufPool[T]) borrow(n int) []T {
	c := sizeClass(n)
	if c > maxPooledBits {
		return make([]T, n)
	}
	if b, _ := bp.classes[c].Get().(*[]T); b != nil {
		s := (*b)[:n]
		clear(s)
		return s
	}
	return make([]T, n, 1<<c)
}

// giveBack returns b, which borrow lent, for reuse; no one may use it after.
func (bp *bufPool[T]) giveBack(b []T) {
	if c := sizeClass(cap(b)); c <= maxPooledBits && cap(b) == 1<<c {
		bp.classes[c].Put(&b)
	}
}

var (
	floatBufs  bufPool[float64]
	uint64Bufs bufPool[uint64]
	int32Bufs  bufPool[int32]
	intBufs    bufPool[int]
	boolBufs   bufPool[bool]
)
