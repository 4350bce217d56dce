package tokenizer

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCountCacheBounded(t *testing.T) {
	const budget = 64 << 10
	c := newCountCache(budget, cacheShards)
	key := func(i int) string { return fmt.Sprintf("%06d %s", i, strings.Repeat("x", 40)) }
	for i := range 20000 {
		k := key(i)
		c.put(c.hash(k), k, i, i+1)
	}
	st := c.stats()
	assert.LessOrEqual(t, st.Bytes, budget)
	assert.Positive(t, st.Entries)
	// The most recent entries are still there, with both counts.
	for i := 19990; i < 20000; i++ {
		k := key(i)
		e, ok := c.get(c.hash(k), k)
		require.True(t, ok, "recent key %d evicted", i)
		assert.Equal(t, cacheEntry{n: int32(i), nl: int32(i + 1)}, e)
	}
	_, ok := c.get(c.hash(key(0)), key(0))
	assert.False(t, ok, "the oldest key survived 20000 inserts in 64 KiB")
}

// TestCountCacheCollision: entries are found by hash but checked by key, so two
// strings with the same hash never share a count.
func TestCountCacheCollision(t *testing.T) {
	c := newCountCache(1<<20, cacheShards)
	const h = 42
	c.put(h, "first", 1, 2)
	_, ok := c.get(h, "second")
	assert.False(t, ok)
	c.put(h, "second", 3, 4)
	e, ok := c.get(h, "second")
	require.True(t, ok)
	assert.Equal(t, int32(3), e.n)
	_, ok = c.get(h, "first")
	assert.False(t, ok)
}

// TestCountCacheKeepsHotEntries: an entry read in the old generation moves to the
// young one and survives the next rotation.
func TestCountCacheKeepsHotEntries(t *testing.T) {
	c := newCountCache(cacheShards*2*10*(entryOverhead+8), cacheShards) // ~10 entries per generation and shard
	hot := "hot line"
	hh := c.hash(hot)
	c.put(hh, hot, 7, 8)
	for i := range 5000 {
		k := fmt.Sprintf("k%07d", i)
		c.put(c.hash(k), k, 1, 2)
		if i%5 == 0 {
			_, ok := c.get(hh, hot)
			require.True(t, ok, "hot entry lost after %d inserts", i)
		}
	}
}

// TestCountUsesCache: a second count of the same text is served by the cache.
func TestCountUsesCache(t *testing.T) {
	e := loadT(t, CL100K).fresh()
	text := "line one\nline two\n\tline three\n"
	first := e.Count(text)
	before := e.CacheStats().Segments
	assert.Equal(t, first, e.Count(text))
	after := e.CacheStats().Segments
	assert.Equal(t, uint64(3), after.Lookups-before.Lookups)
	assert.Equal(t, uint64(3), after.Hits-before.Hits)
	// A line counted alone shares the entry of the same line inside a text.
	assert.Equal(t, refCount(t, CL100K, "line two"), e.Count("line two"))
	assert.Equal(t, uint64(4), e.CacheStats().Segments.Hits-before.Hits)
	assert.Zero(t, e.CacheStats().Texts.Lookups, "short texts skip the text cache")
}

// TestCountUsesTextCache: a long text counted again is one lookup, and a text that
// differs by one byte is not mistaken for it.
func TestCountUsesTextCache(t *testing.T) {
	e := loadT(t, O200K).fresh()
	text := randomText(newRand(37), 400)
	require.GreaterOrEqual(t, len(text), minCachedText)
	want := refCount(t, O200K, text)
	assert.Equal(t, want, e.Count(text))
	segs := e.CacheStats().Segments.Lookups
	assert.Equal(t, want, e.Count(text))
	st := e.CacheStats()
	assert.Equal(t, segs, st.Segments.Lookups, "served whole")
	assert.Equal(t, uint64(1), st.Texts.Hits)
	other := text[:len(text)/2] + "X" + text[len(text)/2+1:]
	assert.Equal(t, refCount(t, O200K, other), e.Count(other))
}
