package tokenizer

import "math"

// Byte-pair merging as tiktoken does it: repeatedly merge the adjacent pair whose
// concatenation has the lowest rank, the leftmost one on ties, until no adjacent
// pair is a token. Only the number of resulting parts is needed.

const (
	noRank = math.MaxInt32
	// smallPiece is the longest piece merged with the quadratic scan on the stack;
	// longer pieces (whitespace or punctuation runs, long words) use a heap.
	smallPiece = 64
)

// mergeUncached returns the number of tokens a piece of 2 bytes or more that is
// not itself a token becomes. Every single byte is a token in both encodings.
func mergeUncached(piece string, ranks *rankTable) int {
	if len(piece) <= smallPiece {
		return mergeSmall(piece, ranks)
	}
	return mergeHeap(piece, ranks)
}

// mergeSmall is tiktoken's reference loop: parts[i] starts a part, rank[i] is the
// rank of parts i and i+1 merged.
func mergeSmall(piece string, ranks *rankTable) int {
	var startBuf [smallPiece + 1]int32
	var rankBuf [smallPiece + 1]int32
	n := len(piece)
	start, rank := startBuf[:n+1], rankBuf[:n+1]
	for i := range start {
		start[i] = int32(i)
		rank[i] = noRank
	}
	for i := 0; i+2 <= n; i++ {
		rank[i] = ranks.rank(piece[i : i+2])
	}
	// pairRank is the rank of parts i and i+1 merged, after parts i+1 and i+2 merged.
	pairRank := func(i int) int32 {
		if i+3 < len(start) {
			return ranks.rank(piece[start[i]:start[i+3]])
		}
		return noRank
	}
	for len(start) > 2 {
		best, at := int32(noRank), -1
		for i := 0; i < len(start)-2; i++ {
			if rank[i] < best {
				best, at = rank[i], i
			}
		}
		if at < 0 {
			break
		}
		rank[at] = pairRank(at)
		if at > 0 {
			rank[at-1] = pairRank(at - 1)
		}
		start = append(start[:at+1], start[at+2:]...)
		rank = append(rank[:at+1], rank[at+2:]...)
	}
	return len(start) - 1
}

// mergeHeap gives the same result as mergeSmall in O(n log n): parts form a linked
// list and candidate merges sit in a min-heap keyed by (rank, start offset), which
// is the reference's "lowest rank, leftmost first" order. Stale heap entries are
// recognised by comparing their rank with the part's current one.
func mergeHeap(piece string, ranks *rankTable) int {
	n := len(piece)
	next := make([]int32, n) // next part's start, n at the end
	prev := make([]int32, n) // previous part's start, -1 at the start
	rank := make([]int32, n) // rank of this part merged with the next one
	alive := make([]bool, n)
	h := make(mergeQueue, 0, n)
	for i := range n {
		next[i], prev[i], alive[i] = int32(i+1), int32(i-1), true
		rank[i] = noRank
		if i+2 <= n {
			rank[i] = ranks.rank(piece[i : i+2])
		}
		if rank[i] != noRank {
			h = append(h, key(rank[i], i))
		}
	}
	h.init()
	// pairRank is the rank of part i merged with its next part.
	pairRank := func(i int32) int32 {
		j := next[i]
		if j >= int32(n) {
			return noRank
		}
		return ranks.rank(piece[i:next[j]])
	}
	parts := n
	for len(h) > 0 {
		k := h.pop()
		r, i := int32(k>>32), int32(uint32(k))
		if !alive[i] || rank[i] != r {
			continue
		}
		j := next[i]
		alive[j] = false
		next[i] = next[j]
		if next[j] < int32(n) {
			prev[next[j]] = i
		}
		parts--
		rank[i] = pairRank(i)
		if rank[i] != noRank {
			h.push(key(rank[i], int(i)))
		}
		if p := prev[i]; p >= 0 {
			rank[p] = pairRank(p)
			if rank[p] != noRank {
				h.push(key(rank[p], int(p)))
			}
		}
	}
	return parts
}

func key(rank int32, start int) uint64 { return uint64(rank)<<32 | uint64(start) }

// mergeQueue is a binary min-heap of (rank, start) keys.
type mergeQueue []uint64

func (h mergeQueue) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *mergeQueue) push(k uint64) {
	*h = append(*h, k)
	q := *h
	i := len(q) - 1
	for i > 0 {
		p := (i - 1) / 2
		if q[p] <= q[i] {
			break
		}
		q[p], q[i] = q[i], q[p]
		i = p
	}
}

func (h *mergeQueue) pop() uint64 {
	q := *h
	top := q[0]
	last := len(q) - 1
	q[0] = q[last]
	*h = q[:last]
	h.down(0)
	return top
}

func (h mergeQueue) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h[r] < h[l] {
			m = r
		}
		if h[i] <= h[m] {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
