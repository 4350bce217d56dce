// Package tokenizer counts tiktoken tokens (cl100k_base, o200k_base) exactly, fast and
// offline.
//
// It is a leaf package: it imports the standard library and the offline rank files
// of github.com/pkoukk/tiktoken-go-loader only, so no network access is ever
// attempted. Counts equal len(tiktoken-go's EncodeOrdinary(s)) for every string:
// special tokens are ordinary text, and invalid UTF-8 is counted as tiktoken-go
// counts it, each invalid byte standing for U+FFFD.
//
// Speed comes from layers: a hand-written pre-tokenizer equivalent to the
// encodings' split patterns (split.go), byte-pair merging over a compact rank table
// (ranks.go, bpe.go) with a cache for pieces that are not single tokens, a cache of
// segments: text is cut where the split patterns cannot join what precedes and what
// follows (segment.go), so counting known lines in a new text is a hash lookup per
// line, and a cache of whole texts of 4 KiB or more, which keeps each text's line prices
// (lineprices.go) so a text read again is priced without a lookup per line. Caches are
// bounded (about 44 MiB per encoding at most) and evict the least recently used generation.
package tokenizer

import (
	"errors"
	"fmt"
	"sync"

	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// Encoding names supported by Load.
const (
	CL100K = "cl100k_base"
	O200K  = "o200k_base"
)

// ErrUnknownEncoding is returned by Load for an encoding name it does not support.
var ErrUnknownEncoding = errors.New("unknown encoding")

// Cache budgets per encoder: segments (lines, mostly), whole texts and merged
// pieces. With two shards, texts up to 2 MiB (the server's default input cap) can be
// cached whole.
const (
	segmentCacheBytes = 32 << 20
	textCacheBytes    = 8 << 20
	textCacheShards   = 2
	pieceCacheBytes   = 4 << 20
	// minCachedText is the shortest text cached whole: below it, the per-segment
	// lookups cost less than hashing and keeping a copy of the text.
	minCachedText = 4 << 10
	// minCachedPiece is the shortest piece worth a cache lookup rather than a merge:
	// shorter merges cost less than the lock, the hash and the cache misses. It was 16
	// until session 38, which measured 4, 6, 10 and 16 on its 2.45 GHz Zen 3: a piece of
	// 6 to 15 bytes that is no token (an identifier, " closeIdleConns") takes a dozen rank
	// probes to merge, and a text's new lines reuse the words of the lines before them.
	// 10,000 lines of Go, cl100k_base: 5.7-7.3 ms against 7.4-9.8 new lines of known words,
	// 6.5-8.9 against 8.4-11.1 with every cache empty (tokenizer/RESULTS.md).
	minCachedPiece = 6
)

// Encoder counts tokens for one encoding. It is safe for concurrent use.
type Encoder struct {
	name   string
	o200k  bool
	ranks  *rankTable
	tab    *[0x10000]uint8
	segs   *countCache
	texts  *countCache
	pieces *countCache
	// barTokens is the count of the line-number bar "│" when every run of one to three
	// digits is one token (both encodings), so a prefix "N│" costs ceil(digits/3) +
	// barTokens; -1 otherwise (see numberedDelta).
	barTokens int
	// blankNL is the count of " \n", what follows "N│" in an empty line's numbered
	// rendering with its line break: the bar's symbol run stops at the blank.
	blankNL int
}

var (
	loadCL100K = sync.OnceValues(func() (*Encoder, error) { return newEncoder(CL100K, false) })
	loadO200K  = sync.OnceValues(func() (*Encoder, error) { return newEncoder(O200K, true) })
)

// Load returns the shared encoder for name, loading its ranks on first use (about
// 0.3 s, 6 MB for cl100k_base and 11 MB for o200k_base), so only the encodings in
// use cost memory.
func Load(name string) (*Encoder, error) {
	switch name {
	case CL100K:
		return loadCL100K()
	case O200K:
		return loadO200K()
	}
	return nil, fmt.Errorf("tokenizer %q: %w (known: %s, %s)", name, ErrUnknownEncoding, CL100K, O200K)
}

func newEncoder(name string, o200k bool) (*Encoder, error) {
	ranks, err := tiktokenloader.NewOfflineLoader().LoadTiktokenBpe(name + ".tiktoken")
	if err != nil {
		return nil, fmt.Errorf("tokenizer %q: %w", name, err)
	}
	e := &Encoder{
		name:   name,
		o200k:  o200k,
		ranks:  newRankTable(ranks),
		tab:    bmpClasses(),
		segs:   newCountCache(segmentCacheBytes, cacheShards),
		texts:  newExtraCache(textCacheBytes, textCacheShards),
		pieces: newCountCache(pieceCacheBytes, cacheShards),
	}
	e.barTokens = e.prefixBarTokens()
	e.blankNL = e.countPlain(linePrefixSep[len(linePrefixSep)-1:] + "\n")
	return e, nil
}

// prefixBarTokens returns countPiece("│") if every string of one to three decimal digits
// is one token, else -1.
func (e *Encoder) prefixBarTokens() int {
	for n, end := 1, 10; n <= 3; n, end = n+1, end*10 {
		for v := range end {
			if e.countPiece(fmt.Sprintf("%0*d", n, v)) != 1 {
				return -1
			}
		}
	}
	return e.countPiece(linePrefixSep[:len(linePrefixSep)-1])
}

// NumeralGroupsAreTokens reports whether every string of one to three ASCII digits is one
// token (true of both encodings, checked when the ranks load). Both split patterns give
// digits only to \p{N}{1,3}, so a maximal run of digits is its own groups of three from the
// left whatever surrounds it, and the pieces around it split the same for any digits: a
// number's change then changes a count by its groups only (TestNumeralGroups).
func (e *Encoder) NumeralGroupsAreTokens() bool { return e.barTokens >= 0 }

// Name is the encoding's name, e.g. "cl100k_base".
func (e *Encoder) Name() string { return e.name }

// CacheStats reports the state of the count caches.
func (e *Encoder) CacheStats() CacheStats {
	return CacheStats{Segments: e.segs.stats(), Texts: e.texts.stats()}
}

// next returns the end of the piece starting at i.
func (e *Encoder) next(sc *scanner, i int) int {
	var j int
	if e.o200k {
		j = sc.nextO200K(i)
	} else {
		j = sc.nextCL100K(i)
	}
	if j <= i { // cannot happen: every rune starts a piece; never loop forever
		_, n, _ := sc.at(i)
		j = i + n
	}
	return j
}

// countPiece returns the number of tokens of one pre-token.
func (e *Encoder) countPiece(p string) int {
	if len(p) <= 1 {
		return len(p)
	}
	if e.ranks.rank(p) != noRank {
		return 1
	}
	if len(p) < minCachedPiece {
		return mergeUncached(p, e.ranks)
	}
	h := e.pieces.hash(p)
	if ce, ok := e.pieces.get(h, p); ok {
		return int(ce.n)
	}
	n := mergeUncached(p, e.ranks)
	e.pieces.put(h, p, n, -1)
	return n
}

// countPlain counts valid UTF-8 s without the segment cache.
func (e *Encoder) countPlain(s string) int {
	sc := scanner{s: s, tab: e.tab}
	n := 0
	for i := 0; i < len(s); {
		j := e.next(&sc, i)
		n += e.countPiece(s[i:j])
		i = j
	}
	return n
}
