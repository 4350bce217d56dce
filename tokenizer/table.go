package tokenizer

// slotTable maps a key's 64-bit hash to its slot: open addressing with linear probing over
// one flat array of (hash, slot) entries. Lines and pieces are looked up by the thousand per
// count and most tables are large, so a lookup is one memory access where a Go map takes two
// or three (its control word, key and value live apart). Hash 0 marks an empty entry; a key
// whose hash is 0 is stored as 1 (the cache compares the key's bytes, so a clash is a miss).
type slotTable struct {
	ents []tableEntry // len is 0 or a power of two
	n    int
}

type tableEntry struct {
	h  uint64
	sl slot
}

// maxLoad: the table grows past 3/4 full; linear probing stays short below that with a
// well-mixed hash (maphash).
const (
	maxLoadNum = 3
	maxLoadDen = 4
)

func newSlotTable(hint int) slotTable {
	size := 16
	for size*maxLoadNum < hint*maxLoadDen {
		size <<= 1
	}
	return slotTable{ents: make([]tableEntry, size)}
}

func fixHash(h uint64) uint64 {
	if h == 0 {
		return 1
	}
	return h
}

func (t *slotTable) len() int { return t.n }

func (t *slotTable) get(h uint64) (slot, bool) {
	if len(t.ents) == 0 {
		return slot{}, false
	}
	h = fixHash(h)
	mask := uint64(len(t.ents) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		e := &t.ents[i]
		if e.h == h {
			return e.sl, true
		}
		if e.h == 0 {
			return slot{}, false
		}
	}
}

// put sets h's slot, replacing the one stored under the same hash.
func (t *slotTable) put(h uint64, sl slot) {
	if (t.n+1)*maxLoadDen > len(t.ents)*maxLoadNum {
		t.grow()
	}
	h = fixHash(h)
	mask := uint64(len(t.ents) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		e := &t.ents[i]
		if e.h == h {
			e.sl = sl
			return
		}
		if e.h == 0 {
			*e = tableEntry{h: h, sl: sl}
			t.n++
			return
		}
	}
}

// del removes h, shifting the entries after it back so that no probe sequence breaks.
func (t *slotTable) del(h uint64) {
	if len(t.ents) == 0 {
		return
	}
	h = fixHash(h)
	mask := uint64(len(t.ents) - 1)
	i := h & mask
	for ; t.ents[i].h != h; i = (i + 1) & mask {
		if t.ents[i].h == 0 {
			return
		}
	}
	for j := i; ; {
		j = (j + 1) & mask
		if t.ents[j].h == 0 {
			break
		}
		// The entry at j may fill the hole at i unless its home lies cyclically in (i, j].
		home := t.ents[j].h & mask
		if (i < j && i < home && home <= j) || (i > j && (home > i || home <= j)) {
			continue
		}
		t.ents[i] = t.ents[j]
		i = j
	}
	t.ents[i] = tableEntry{}
	t.n--
}

func (t *slotTable) grow() {
	old := t.ents
	*t = newSlotTable(max(2*len(old)*maxLoadNum/maxLoadDen, 16))
	for _, e := range old {
		if e.h != 0 {
			t.put(e.h, e.sl)
		}
	}
}
