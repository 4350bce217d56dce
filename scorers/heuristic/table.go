package heuristic

// termTable is an open-addressing hash set from term hashes to goal-term indexes. Goals have
// at most a few hundred terms and every word of every line is looked up, so a flat,
// power-of-two table with linear probing beats a Go map here by a wide margin.
type termTable struct {
	keys []termHash // 0 marks an empty slot (a real hash of 0 is stored as 1)
	vals []int32
	mask uint64
}

func newTermTable(hashes []termHash, idx []int32) termTable {
	size := 16
	for size < 4*len(hashes) {
		size <<= 1
	}
	t := termTable{keys: make([]termHash, size), vals: make([]int32, size), mask: uint64(size - 1)}
	for i, h := range hashes {
		if h == 0 {
			h = 2
		}
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

func (t termTable) get(h termHash) (int32, bool) {
	if len(t.keys) == 0 {
		return 0, false
	}
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
