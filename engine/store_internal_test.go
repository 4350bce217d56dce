package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The store's byte count is always its distinct texts plus its entries, within the cap, and
// every id it still finds returns the text last stored under it: random puts, replacements,
// reads and clock steps against a plain record of what was stored.
func TestMemoryStoreAccountingUnderRandomUse(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	now := time.Unix(0, 0)
	texts := []string{"", "a", "same", "same", "a longer text that several entries share\n", "x\ny\nz\n"}
	for round := range 20 {
		maxBytes := int64(StoreEntryOverhead*(2+rng.IntN(8))) + int64(rng.IntN(200))
		s := NewMemoryStore(time.Duration(1+rng.IntN(20))*time.Second, maxBytes, func() time.Time { return now })
		last := map[string]string{}
		for op := range 2000 {
			id := fmt.Sprintf("id%d", rng.IntN(12))
			switch k := rng.IntN(10); {
			case k < 6:
				text := texts[rng.IntN(len(texts))]
				if rng.IntN(4) == 0 {
					text = fmt.Sprintf("unique %d %d", round, op)
				}
				require.NoError(t, s.Put(ctx, id, text))
				last[id] = text
			case k < 9:
				if got, err := s.Get(ctx, id); err == nil {
					require.Equal(t, last[id], got, "round %d op %d: %s", round, op, id)
				} else {
					require.ErrorIs(t, err, ErrPruneIDNotFound)
				}
			default:
				now = now.Add(time.Duration(rng.IntN(3000)) * time.Millisecond)
			}
			s.mu.Lock()
			want := int64(0)
			for el := s.lru.Front(); el != nil; el = el.Next() {
				want += entryCost(el.Value.(*storeEntry).id)
			}
			refs := map[*storeText]int{}
			for _, el := range s.byID {
				refs[el.Value.(*storeEntry).text]++
			}
			for text, st := range s.texts {
				want += int64(len(text))
				require.Equal(t, text, st.text)
				require.Equal(t, refs[st], st.refs, "a text's count is the entries holding it")
			}
			require.Len(t, refs, len(s.texts), "no entry holds a text the store has dropped")
			require.Equal(t, s.lru.Len(), len(s.byID))
			require.Equal(t, want, s.bytes, "round %d op %d", round, op)
			require.LessOrEqual(t, s.bytes, maxBytes)
			s.mu.Unlock()
		}
	}
}
