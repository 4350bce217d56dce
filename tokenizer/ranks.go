package tokenizer

// rankTable answers "is this byte string a token, and of which rank" with fewer
// cache misses than a map[string]int, whose lookups dominated counting: a Go map
// slot points at the key's bytes elsewhere, so a lookup touches three cache lines.
// Here byte pairs are a flat array, strings of 3 to 8 bytes are packed into a
// uint64 and strings of 9 to 16 bytes into two, each in an open-addressing table
// (one cache line per probe), and only longer tokens go through a map. A new text's
// pieces of 9 to 16 bytes are one in eight (" function", "Exception"), most of them
// tokens: through the map they took a tenth of a new text's count.
type rankTable struct {
	single  [256]int32
	pair    []int32 // 65536 entries, by first byte << 8 | second byte
	short   []shortSlot
	bits    uint
	mid     []midSlot
	midBits uint
	long    map[string]int32
}

type shortSlot struct {
	key  uint64
	rank int32
	n    int32 // 0: empty
}

// midSlot holds a token of 9 to 16 bytes: its first 8 bytes packed in lo, the rest in hi.
type midSlot struct {
	lo, hi uint64
	rank   int32
	n      int32 // 0: empty
}

// midBytes is the longest token the mid table holds.
const midBytes = 16

func newRankTable(ranks map[string]int) *rankTable {
	t := &rankTable{pair: make([]int32, 1<<16), long: map[string]int32{}}
	for i := range t.single {
		t.single[i] = noRank
	}
	for i := range t.pair {
		t.pair[i] = noRank
	}
	shorts, mids := 0, 0
	for k := range ranks {
		switch {
		case len(k) >= 3 && len(k) <= 8:
			shorts++
		case len(k) > 8 && len(k) <= midBytes:
			mids++
		}
	}
	t.bits = 4
	for 1<<t.bits < 2*shorts {
		t.bits++
	}
	t.short = make([]shortSlot, 1<<t.bits)
	t.midBits = 4
	for 1<<t.midBits < 2*mids {
		t.midBits++
	}
	t.mid = make([]midSlot, 1<<t.midBits)
	for k, r := range ranks {
		switch rank := int32(r); {
		case len(k) == 1:
			t.single[k[0]] = rank
		case len(k) == 2:
			t.pair[int(k[0])<<8|int(k[1])] = rank
		case len(k) <= 8:
			key, n := pack(k), int32(len(k))
			mask := uint64(1)<<t.bits - 1
			for i := t.slot(key, n); ; i = (i + 1) & mask {
				if t.short[i].n == 0 {
					t.short[i] = shortSlot{key: key, rank: rank, n: n}
					break
				}
			}
		case len(k) <= midBytes:
			lo, hi, n := pack(k[:8]), pack(k[8:]), int32(len(k))
			mask := uint64(1)<<t.midBits - 1
			for i := t.midSlot(lo, hi, n); ; i = (i + 1) & mask {
				if t.mid[i].n == 0 {
					t.mid[i] = midSlot{lo: lo, hi: hi, rank: rank, n: n}
					break
				}
			}
		default:
			t.long[k] = rank
		}
	}
	return t
}

// pack puts up to 8 bytes of s into a uint64, first byte lowest.
func pack(s string) uint64 {
	var k uint64
	for i := len(s) - 1; i >= 0; i-- {
		k = k<<8 | uint64(s[i])
	}
	return k
}

func (t *rankTable) slot(key uint64, n int32) uint64 {
	return ((key ^ uint64(n)<<59) * 0x9E3779B97F4A7C15) >> (64 - t.bits)
}

func (t *rankTable) midSlot(lo, hi uint64, n int32) uint64 {
	h := (lo*0x9E3779B97F4A7C15 ^ hi ^ uint64(n)<<59) * 0xC2B2AE3D27D4EB4F
	return h >> (64 - t.midBits)
}

// rank returns the rank of token s, or noRank when s is not a token.
func (t *rankTable) rank(s string) int32 {
	switch len(s) {
	case 0:
		return noRank
	case 1:
		return t.single[s[0]]
	case 2:
		return t.pair[int(s[0])<<8|int(s[1])]
	}
	if len(s) > 8 {
		if len(s) <= midBytes {
			return t.midRank(s)
		}
		if r, ok := t.long[s]; ok {
			return r
		}
		return noRank
	}
	key, n := pack(s), int32(len(s))
	mask := uint64(1)<<t.bits - 1
	for i := t.slot(key, n); ; i = (i + 1) & mask {
		sl := &t.short[i]
		if sl.n == 0 {
			return noRank
		}
		if sl.key == key && sl.n == n {
			return sl.rank
		}
	}
}

// midRank is rank for 9 to 16 bytes.
func (t *rankTable) midRank(s string) int32 {
	lo, hi, n := pack(s[:8]), pack(s[8:]), int32(len(s))
	mask := uint64(1)<<t.midBits - 1
	for i := t.midSlot(lo, hi, n); ; i = (i + 1) & mask {
		sl := &t.mid[i]
		if sl.n == 0 {
			return noRank
		}
		if sl.lo == lo && sl.hi == hi && sl.n == n {
			return sl.rank
		}
	}
}
