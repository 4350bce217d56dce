package tokenizer

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// longText is a text the texts cache keeps whole, with n lines of random code.
func longText(t *testing.T, seed uint64, n int) string {
	t.Helper()
	r := newRand(seed)
	var b strings.Builder
	for b.Len() < 2*minCachedText || strings.Count(b.String(), "\n") < n {
		b.WriteString(randomText(r, 20))
		b.WriteString("\n")
	}
	return b.String()
}

// TestCountLinesRemembersPrices: a text counted again by CountLines is priced from the
// prices kept with it, without a segment lookup, and they are the prices of a first count;
// a text the cache holds from Count alone is priced line by line once, then remembered.
func TestCountLinesRemembersPrices(t *testing.T) {
	for _, name := range encodingNames {
		e := loadT(t, name).fresh()
		text := longText(t, 61, 300)
		n, costs := e.CountLines(text)
		segs := e.CacheStats().Segments.Lookups
		again, againCosts := e.CountLines(text)
		assert.Equal(t, n, again, name)
		assert.Equal(t, costs, againCosts, name)
		assert.Equal(t, segs, e.CacheStats().Segments.Lookups, "%s: prices kept with the text", name)

		other := longText(t, 62, 300)
		total := e.Count(other)
		n, costs = e.CountLines(other)
		assert.Equal(t, total, n, name)
		checkCountLines(t, e, other, false)
		segs = e.CacheStats().Segments.Lookups
		_, againCosts = e.CountLines(other)
		assert.Equal(t, costs, againCosts, name)
		assert.Equal(t, segs, e.CacheStats().Segments.Lookups, "%s: priced once, then remembered", name)
	}
}

// TestLinePricesTooLarge: a line of 65,535 tokens or more has no 16-bit price, so its text
// is kept without prices and priced line by line, exactly, every time.
func TestLinePricesTooLarge(t *testing.T) {
	e := loadT(t, CL100K).fresh()
	text := "first line\n" + strings.Repeat(" 7 x", 40000) + "\n" + longText(t, 63, 100)
	require.True(t, e.texts.fits(len(text)))
	checkCountLines(t, e, text, false)
	_, costs := e.CountLines(text)
	require.GreaterOrEqual(t, costs[1], unknownPrice)
	assert.Nil(t, e.NumberedCounts(text), "no prices kept")
	segs := e.CacheStats().Segments.Lookups
	e.CountLines(text)
	assert.Greater(t, e.CacheStats().Segments.Lookups, segs, "priced line by line")
}

// TestNumberedCountsRemembered: NumberedCounts knows nothing of a text CountLines has not
// priced, knows no numbered form of one it has, and returns what RememberNumbered stored;
// counts of another length and counts too large for 16 bits are not stored.
func TestNumberedCountsRemembered(t *testing.T) {
	e := loadT(t, O200K).fresh()
	text := longText(t, 64, 200)
	assert.Nil(t, e.NumberedCounts(text))
	assert.Nil(t, e.NumberedCounts("short\n"), "short texts are not cached whole")
	_, costs := e.CountLines(text)
	known := e.NumberedCounts(text)
	require.Len(t, known, len(costs))
	assert.Equal(t, slices.Repeat([]int32{-1}, len(costs)), known)

	counts := slices.Repeat([]int32{-1}, len(costs))
	counts[0], counts[3], counts[len(counts)-1] = 5, 0, 17
	counts[7] = unknownPrice // too large: not stored
	e.RememberNumbered(text, counts)
	e.RememberNumbered(text, []int32{9, 9}) // another length: ignored
	got := e.NumberedCounts(text)
	counts[7] = -1
	assert.Equal(t, counts, got)
	got[0] = 99
	assert.Equal(t, int32(5), e.NumberedCounts(text)[0], "the slice is the caller's")
	_, again := e.CountLines(text)
	assert.Equal(t, costs, again, "numbered counts leave the lines' own prices alone")
}

// TestExtraCacheKeepsExtraBytes: an entry's extra bytes survive its moves between
// generations, an update in place, and a plain put of the same key.
func TestExtraCacheKeepsExtraBytes(t *testing.T) {
	c := newExtraCache(textCacheShards*2*8*(entryOverhead+24), textCacheShards) // ~8 entries per generation and shard
	hot := "hot text"
	hh := c.hash(hot)
	c.putExtra(hh, hot, 7, []byte{1, 2, 3, 4})
	read := func() []byte {
		var got []byte
		n, ok := c.getExtra(hh, hot, func(extra []byte) { got = slices.Clone(extra) })
		require.True(t, ok)
		require.Equal(t, 7, n)
		return got
	}
	for i := range 2000 {
		k := fmt.Sprintf("k%07d", i)
		c.putExtra(c.hash(k), k, i, []byte{byte(i)})
		if i%3 == 0 {
			require.Equal(t, []byte{1, 2, 3, 4}, read(), "after %d inserts", i)
		}
	}
	require.True(t, c.updateExtra(hh, hot, func(extra []byte) { extra[2] = 9 }))
	c.put(hh, hot, 7, -1)
	assert.Equal(t, []byte{1, 2, 9, 4}, read())
	assert.False(t, c.updateExtra(c.hash("absent"), "absent", func([]byte) { t.Fatal("called") }))
	assert.LessOrEqual(t, c.stats().Bytes, textCacheShards*2*8*(entryOverhead+24))
}

// TestLinePricesConcurrent: prunes of the same texts at once price them, read and remember
// their numbered counts without a race (go test -race) and agree.
func TestLinePricesConcurrent(t *testing.T) {
	e := loadT(t, CL100K).fresh()
	texts := []string{longText(t, 65, 150), longText(t, 66, 150)}
	want := make([][]int, len(texts))
	for i, text := range texts {
		other, err := newEncoder(CL100K, false)
		require.NoError(t, err)
		_, want[i] = other.CountLines(text)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for k := range 40 {
				i := (g + k) % len(texts)
				_, costs := e.CountLines(texts[i])
				if !assert.Equal(t, want[i], costs) {
					return
				}
				if known := e.NumberedCounts(texts[i]); known != nil {
					known[k%len(known)] = int32(want[i][k%len(known)] + 2)
					e.RememberNumbered(texts[i], known)
				}
			}
		})
	}
	wg.Wait()
}
