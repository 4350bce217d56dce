package heuristic

// termTable is an open-addressing hash set from term hashes to goal-term indexes. Goals have
// at most a few hundred terms and every word of every line is looked up, so a flat,
// power-of-two table with linear probing beats a Go map here by a wide margin.
type termTable struct {
	keys []termHash // 0 marks an empty slot (a real hash of 0 is stored as 1)
	vals []int32
	mask uint64
	// seen is a one-hash Bloom filter over the keys: almost every word looked up is absent,
	// and one bit test rejects most of them before the probe.
	seen [bloomWords]uint64
}

const bloomWords = 64 // 4096 bits: a few hundred goal terms leave most bits clear

func newTermTable(hashes []termHash, idx []int32) *termTable {
	size := 16
	for size < 4*len(hashes) {
		size <<= 1
	}
	t := &termTable{keys: make([]termHash, size), vals: make([]int32, size), mask: uint64(size - 1)}
	for i, h := range hashes {
		if h == 0 {
			h = 2
		}
		t.seen[bloomWord(h)] |= bloomBit(h)
		for j := slot(h) & t.mask; ; j = (j + 1) & t.mask {
			if t.keys[j] == h {
				break // first term with this hash wins
			}
			if t.keys[j] == 0 {
				t.keys[j], t.vals[j] = h, idx[i]
				break
			}
		}
	}
	return t
}

// get returns the index stored for h.
func (t *termTable) get(h termHash) (int32, bool) {
	if !t.mayHold(h) {
		return 0, false
	}
	return t.probe(h)
}

// mayHold is the filter's test: false means h is not in the table. Hot loops call it and
// probe separately, so the test is inlined and the probe runs for the few hashes that pass.
func (t *termTable) mayHold(h termHash) bool { return t.seen[bloomWord(h)]&bloomBit(h) != 0 }

func (t *termTable) probe(h termHash) (int32, bool) {
	if h == 0 {
		h = 2
	}
	for j := slot(h); ; {
		j &= t.mask
		k := t.keys[j]
		if k == h {
			return t.vals[j], true
		}
		if k == 0 {
			return 0, false
		}
		j++
	}
}

// slot spreads FNV's weak low bits over the table.
func slot(h termHash) uint64 { return uint64(h) ^ uint64(h)>>29 }

// bloomWord and bloomBit place a hash in the filter, from its high bits (FNV's best mixed,
// and not the ones slot leans on). 0 and 2, which the table stores alike, share a place.
func bloomWord(h termHash) uint64 { return uint64(h) >> 58 }
func bloomBit(h termHash) uint64  { return 1 << (uint64(h) >> 52 & 63) }
