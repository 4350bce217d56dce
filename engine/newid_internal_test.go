package engine

import (
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
		costs := map[int]int{}
		for range 300 {
			costs[tok.Count(Marker(e.newID(), 12, 345, reasonOffFocus+": parse_header"))]++
		}
		assert.Len(t, costs, 1, "%s: marker costs by id %v", enc, costs)
	}
	// A counter under which the id's share of a marker depends on its surroundings is
	// measured on whole markers, and its ids still price markers alike.
	e, err := New(Config{Registry: NewRegistry(), Store: NewMemoryStore(0, 1<<20, nil), Tokens: digitsSquared{}})
	require.NoError(t, err)
	assert.False(t, e.shortProbe)
	for range 50 {
		assert.Equal(t, e.markerRef, digitsSquared{}.Count(idProbe(e.newID())))
	}
}

// digitsSquared is a counter that is not additive: the square of the number of digits.
type digitsSquared struct{}

func (digitsSquared) Count(s string) int {
	d := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			d++
		}
	}
	return d * d
}
