package tokenizer

import (
	"hash/maphash"
	"sync"
)

// countCache maps strings to token counts with bounded memory. It is split in
// shards, each with its own lock, and each shard keeps two generations: inserts go
// to the young one; when it is full it becomes the old one and the previous old one
// is dropped. A hit in the old generation is copied to the young one, so entries in
// use survive. Entries are found by a 64-bit hash, but the key's bytes are kept and
// compared, so a hash collision is a miss, never a wrong count.
//
// A generation stores its keys back to back in one byte arena and its index holds
// offsets, not strings: no allocation per entry, nothing for the garbage collector
// to scan, and the keys of consecutive lines sit close together in memory.
type countCache struct {
	seed       maphash.Seed
	shardBytes int
	shift      uint // a hash's top bits pick its shard
	shards     []cacheShard
	// extra marks a cache whose entries may carry bytes of their own after the key (the
	// whole texts' line prices, lineprices.go): there a slot's nl is not a count but the
	// number of those bytes, or -1 for none.
	extra bool
}

const (
	// cacheShards suits small keys looked up often (lines, pieces): 16 locks.
	cacheShards = 16
	// entryOverhead approximates an index entry (24 bytes) with its share of the table's
	// spare room (a quarter to five eighths of it).
	entryOverhead = 48
)

type cacheShard struct {
	mu          sync.Mutex
	young, old  generation
	hits, total uint64
	_           [64]byte // keep shards on separate cache lines
}

type generation struct {
	index slotTable
	arena []byte
}

// slot locates a key in the arena and holds its counts (in a cache with extra bytes, nl is
// their length: see countCache.extra).
type slot struct {
	off, len uint32
	n, nl    int32
}

// cacheEntry holds the counts of a key and of the key followed by "\n" (nl < 0:
// not known).
type cacheEntry struct {
	n, nl int32
}

// count is the entry's count of its text, followed by "\n" when nl.
func (ce cacheEntry) count(nl bool) int {
	if nl {
		return int(ce.nl)
	}
	return int(ce.n)
}

func (g *generation) bytes() int { return len(g.arena) + g.index.len()*entryOverhead }

func (g *generation) lookup(h uint64, s string) (slot, bool) {
	sl, ok := g.index.get(h)
	return sl, ok && int(sl.len) == len(s) && string(g.arena[sl.off:sl.off+sl.len]) == s
}

// extraOf returns the bytes stored after sl's key (a cache with extra bytes only).
func (g *generation) extraOf(sl slot) []byte {
	if sl.nl <= 0 {
		return nil
	}
	from := sl.off + sl.len
	return g.arena[from : from+uint32(sl.nl)]
}

// newCountCache returns a cache of shards shards (a power of two) that holds about
// maxBytes bytes of keys and entries. A key larger than a shard's generation
// (maxBytes/shards/2) is not kept.
func newCountCache(maxBytes, shards int) *countCache {
	bits := uint(0)
	for 1<<bits < shards {
		bits++
	}
	c := &countCache{
		seed:       maphash.MakeSeed(),
		shardBytes: max(maxBytes>>bits/2, 1),
		shift:      64 - bits,
		shards:     make([]cacheShard, 1<<bits),
	}
	for i := range c.shards {
		c.shards[i].young = generation{index: newSlotTable(0)}
	}
	return c
}

// fits reports whether a key of n bytes can be kept.
func (c *countCache) fits(n int) bool { return n+entryOverhead <= c.shardBytes }

func (c *countCache) hash(s string) uint64 { return maphash.String(c.seed, s) }

func (c *countCache) shard(h uint64) *cacheShard {
	return &c.shards[h>>c.shift&uint64(len(c.shards)-1)]
}

// newExtraCache is newCountCache for entries that may carry bytes of their own (putExtra).
func newExtraCache(maxBytes, shards int) *countCache {
	c := newCountCache(maxBytes, shards)
	c.extra = true
	return c
}

// get returns the counts for s, whose hash is h.
func (c *countCache) get(h uint64, s string) (cacheEntry, bool) {
	sh := c.shard(h)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sl, ok := sh.find(c, h, s)
	return cacheEntry{n: sl.n, nl: sl.nl}, ok
}

// getExtra returns the count of s, whose hash is h, and calls read with the bytes stored
// after it (empty when there are none). read runs under the shard's lock and must not keep
// the slice.
func (c *countCache) getExtra(h uint64, s string, read func(extra []byte)) (int, bool) {
	sh := c.shard(h)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sl, ok := sh.find(c, h, s)
	if !ok {
		return 0, false
	}
	read(sh.young.extraOf(sl))
	return int(sl.n), true
}

// updateExtra calls write with the bytes stored after s (whose hash is h), to change them in
// place under the shard's lock; it reports whether s is cached with such bytes.
func (c *countCache) updateExtra(h uint64, s string, write func(extra []byte)) bool {
	sh := c.shard(h)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sl, ok := sh.find(c, h, s)
	if !ok || sl.nl <= 0 {
		return false
	}
	write(sh.young.extraOf(sl))
	return true
}

// find is locate counted in the shard's statistics.
func (sh *cacheShard) find(c *countCache, h uint64, s string) (slot, bool) {
	sh.total++
	sl, ok := sh.locate(c, h, s)
	if ok {
		sh.hits++
	}
	return sl, ok
}

// locate returns s's slot in the young generation, moving it there from the old one; the
// caller holds the lock.
func (sh *cacheShard) locate(c *countCache, h uint64, s string) (slot, bool) {
	if sl, ok := sh.young.lookup(h, s); ok {
		return sl, true
	}
	sl, ok := sh.old.lookup(h, s)
	if !ok {
		return slot{}, false
	}
	sh.old.index.del(h)
	var extra []byte
	if c.extra {
		extra = sh.old.extraOf(sl)
	}
	return sh.insert(c.shardBytes, h, s, sl.n, sl.nl, extra), true
}

// put records the counts of s (the key's bytes are copied: s may be part of a
// large text that must not stay in memory).
func (c *countCache) put(h uint64, s string, n, nl int) {
	if !c.fits(len(s)) {
		return
	}
	sh := c.shard(h)
	sh.mu.Lock()
	if c.extra {
		// A key cached with extra bytes keeps them: its count cannot differ.
		if _, ok := sh.locate(c, h, s); ok {
			sh.mu.Unlock()
			return
		}
	}
	sh.insert(c.shardBytes, h, s, int32(n), int32(nl), nil)
	sh.mu.Unlock()
}

// putExtra records the count of s and the bytes extra to keep after it (a cache with extra
// bytes only; both are copied). When s and extra do not fit together, s is kept alone.
func (c *countCache) putExtra(h uint64, s string, n int, extra []byte) {
	if !c.fits(len(s) + len(extra)) {
		c.put(h, s, n, -1)
		return
	}
	sh := c.shard(h)
	sh.mu.Lock()
	if sl, ok := sh.locate(c, h, s); ok && int(sl.nl) == len(extra) {
		copy(sh.young.extraOf(sl), extra)
	} else {
		sh.insert(c.shardBytes, h, s, int32(n), int32(len(extra)), extra)
	}
	sh.mu.Unlock()
}

// insert appends s and extra (nil outside a cache with extra bytes) to the young generation
// under hash h, with counts n and nl, and returns the new slot.
func (sh *cacheShard) insert(limit int, h uint64, s string, n, nl int32, extra []byte) slot {
	if sl, ok := sh.young.lookup(h, s); ok && sl.n == n && sl.nl == nl && extra == nil {
		return sl // already there (two callers counted the same key)
	}
	size := len(s) + len(extra)
	if sh.young.bytes()+size+entryOverhead > limit && sh.young.index.len() > 0 {
		sh.old = sh.young
		sh.young = generation{index: newSlotTable(sh.old.index.len())}
	}
	if a := sh.young.arena; len(a)+size > cap(a) {
		// Grow by hand so that the arena never outgrows the generation's budget.
		grown := make([]byte, len(a), min(max(2*cap(a), len(a)+size, 1<<10), limit))
		copy(grown, a)
		sh.young.arena = grown
	}
	off := len(sh.young.arena)
	sh.young.arena = append(sh.young.arena, s...)
	sh.young.arena = append(sh.young.arena, extra...)
	sl := slot{off: uint32(off), len: uint32(len(s)), n: n, nl: nl}
	sh.young.index.put(h, sl)
	return sl
}

// CacheStats describes an Encoder's count caches.
type CacheStats struct {
	// Segments caches lines (segments, exactly); Texts caches whole texts.
	Segments, Texts CacheUsage
}

// CacheUsage describes one cache.
type CacheUsage struct {
	// Entries is the number of cached strings, Bytes their approximate footprint.
	Entries, Bytes int
	// Lookups and Hits count cache lookups since the encoder was loaded.
	Lookups, Hits uint64
}

func (c *countCache) stats() CacheUsage {
	var st CacheUsage
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		for _, g := range []*generation{&sh.young, &sh.old} {
			st.Entries += g.index.len()
			st.Bytes += g.bytes()
		}
		st.Lookups += sh.total
		st.Hits += sh.hits
		sh.mu.Unlock()
	}
	return st
}
