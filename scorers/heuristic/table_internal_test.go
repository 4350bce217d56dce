package heuristic

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// The table must answer exactly like a map, filter and all: every stored hash is found with
// its first index, hashes 0 and 2 (stored alike) included, and absent ones are not.
func TestTermTableMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{0, 1, 7, 300} {
		want := map[termHash]int32{}
		var hashes []termHash
		var idx []int32
		for i := range size {
			h := termHash(r.Uint64())
			if i == 0 {
				h = 0
			}
			hashes = append(hashes, h)
			idx = append(idx, int32(i))
			if _, ok := want[h]; !ok {
				want[h] = int32(i)
			}
		}
		tab := newTermTable(hashes, idx)
		for h, i := range want {
			got, ok := tab.get(h)
			require.True(t, ok, "size %d: stored hash %x not found", size, h)
			require.Equal(t, i, got)
		}
		for range 10000 {
			h := termHash(r.Uint64())
			_, ok := tab.get(h)
			_, in := want[h]
			require.Equal(t, in, ok, "size %d: hash %x", size, h)
		}
		if size > 0 { // 0 was stored: the table cannot tell it from 2
			_, ok := tab.get(2)
			require.True(t, ok)
		}
	}
}
