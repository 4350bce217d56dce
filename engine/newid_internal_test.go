package engine

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/tokenizer"
)

// Every id newID draws prices its markers alike, whether it measured the whole marker or,
// with tiktoken, the short "=" + id probe.
func TestNewIDMarkersCostTheSame(t *testing.T) {
	for _, enc := range []string{tokenizer.CL100K, tokenizer.O200K} {
		tok, err := tokenizer.Load(enc)
		require.NoError(t, err)
		e, err := New(Config{Registry: NewRegistry(), Store: NewMemoryStore(0, 1<<20, nil), Tokens: tok})
		require.NoError(t, err)
		assert.True(t, e.shortProbe, "%s: the id splits off the marker", enc)
		assert.True(t, e.idsAlike, "%s: every id costs the same, so none is counted", enc)
		costs := map[int]int{}
		for range 300 {
			costs[tok.Count(Marker(e.newID(), 12, 345, reasonOffFocus+": parse_header"))]++
		}
		assert.Len(t, costs, 1, "%s: marker costs by id %v", enc, costs)
	}
	// A counter under which the id's share of a marker depends on its surroundings is
	// measured on whole markers, and its ids still price markers alike.
	e, err := New(Config{Registry: NewRegistry(), Store: NewMemoryStore(0, 1<<20, nil), Tokens: onesSquared{}})
	require.NoError(t, err)
	assert.False(t, e.shortProbe)
	assert.False(t, e.idsAlike)
	for range 50 {
		assert.Equal(t, e.markerRef, onesSquared{}.Count(idProbe(e.newID())))
	}
}

// NewPruneID draws 32 decimal digits, uniformly: every digit at every place, and no two ids
// alike.
func TestNewPruneIDDigits(t *testing.T) {
	seen := map[string]bool{}
	var counts [32][10]int
	for range 5000 {
		id := NewPruneID()
		require.Regexp(t, `^prn_[0-9]{32}$`, id)
		require.False(t, seen[id], "id %s drawn twice", id)
		seen[id] = true
		for k := range 32 {
			counts[k][id[4+k]-'0']++
		}
	}
	for k, c := range counts {
		for d, n := range c {
			// 500 expected; 6 standard deviations either side.
			assert.InDelta(t, 500, n, 130, "digit %d at place %d", d, k)
		}
	}
}

// onesSquared is a counter that is not additive: the square of the number of '1's (a
// marker's own "1-1 (1)" adds three to its id's).
type onesSquared struct{}

func (onesSquared) Count(s string) int {
	d := strings.Count(s, "1")
	return d * d
}
