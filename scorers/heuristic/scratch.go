package heuristic

import "sync"

// Buffers that a scoring call needs only while it runs are lent from pools: a 10,000-line
// log's scoring made 770 KB of garbage a call, half of it in such arrays, and on two cores
// the collector's share of a processor cost the parallel scan much of what it gained.

// bufPool lends slices of T. A slice comes back with the length asked for and every element
// zero, as make would give it.
type bufPool[T any] struct{ p sync.Pool }

// maxPooled is the largest slice kept for reuse (in elements): a rare huge input's arrays go
// to the collector rather than stay in the pool.
const maxPooled = 1 << 20

func (bp *bufPool[T]) borrow(n int) []T {
	if b, _ := bp.p.Get().(*[]T); b != nil && cap(*b) >= n {
		s := (*b)[:n]
		clear(s)
		return s
	}
	return make([]T, n)
}

// giveBack returns b for reuse; no one may use it after.
func (bp *bufPool[T]) giveBack(b []T) {
	if cap(b) <= maxPooled {
		bp.p.Put(&b)
	}
}

var (
	floatBufs  bufPool[float64]
	uint64Bufs bufPool[uint64]
	int32Bufs  bufPool[int32]
	intBufs    bufPool[int]
	boolBufs   bufPool[bool]
)
