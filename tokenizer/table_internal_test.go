package tokenizer

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// The flat table must behave as a map under any mix of puts, gets and deletes, including
// hashes that share a home entry (few distinct low bits) and the hash 0.
func TestSlotTableMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, keyBits := range []uint{4, 10, 64} {
		tab := newSlotTable(0)
		want := map[uint64]slot{}
		key := func() uint64 {
			if keyBits == 64 {
				if r.IntN(50) == 0 {
					return 0
				}
				return r.Uint64()
			}
			// Few distinct keys, all sharing their low bits: long probe runs, wrap-around.
			return r.Uint64N(1<<keyBits) << 40
		}
		for op := range 20000 {
			h := key()
			switch r.IntN(3) {
			case 0:
				sl := slot{off: uint32(op), len: uint32(op % 7), n: int32(op), nl: int32(-op)}
				tab.put(h, sl)
				want[fixHash(h)] = sl
			case 1:
				tab.del(h)
				delete(want, fixHash(h))
			}
			got, ok := tab.get(h)
			w, in := want[fixHash(h)]
			require.Equal(t, in, ok, "bits %d op %d", keyBits, op)
			require.Equal(t, w, got)
			require.Equal(t, len(want), tab.len())
		}
		for h, w := range want {
			got, ok := tab.get(h)
			require.True(t, ok)
			require.Equal(t, w, got)
		}
	}
}
