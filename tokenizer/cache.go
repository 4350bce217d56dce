package tokenizer

import (
	"hash/maphash"
	"strings"
	"sync"
)

// countCache maps strings to token counts with bounded memory. It is split in
// shards, each with its own lock, and each shard keeps two generations: inserts go
// to the young map; when it is full it becomes the old one and the previous old one
// is dropped. A hit in the old generation is copied to the young one, so entries in
// use survive. Keys are 64-bit hashes, but the key text is kept and compared, so a
// hash collision is a miss, never a wrong count.
type countCache struct {
	seed       maphash.Seed
	shardBytes int
	shift      uint // a hash's top bits pick its shard
	shards     []cacheShard
}

const (
	// cacheShards suits small keys looked up often (lines, pieces): 16 locks.
	cacheShards = 16
	// entryOverhead approximates a map slot, the entry and the string header.
	entryOverhead = 64
)

type cacheShard struct {
	mu          sync.Mutex
	young, old  map[uint64]cacheEntry
	youngBytes  int
	hits, total uint64
	_           [64]byte // keep shards on separate cache lines
}

// cacheEntry holds the counts of key and of key+"\n" (nl < 0: not known).
type cacheEntry struct {
	key   string
	n, nl int32
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
		c.shards[i].young = map[uint64]cacheEntry{}
	}
	return c
}

func (c *countCache) hash(s string) uint64 { return maphash.String(c.seed, s) }

func (c *countCache) shard(h uint64) *cacheShard {
	return &c.shards[h>>c.shift&uint64(len(c.shards)-1)]
}

// get returns the entry for s, whose hash is h.
func (c *countCache) get(h uint64, s string) (cacheEntry, bool) {
	sh := c.shard(h)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.total++
	if e, ok := sh.young[h]; ok && e.key == s {
		sh.hits++
		return e, true
	}
	if e, ok := sh.old[h]; ok && e.key == s {
		sh.hits++
		delete(sh.old, h)
		sh.insert(c.shardBytes, h, e)
		return e, true
	}
	return cacheEntry{}, false
}

// put records the counts of s; the key is copied so that s may be part of a large
// text that must not stay in memory.
func (c *countCache) put(h uint64, s string, n, nl int) {
	sh := c.shard(h)
	e := cacheEntry{key: strings.Clone(s), n: int32(n), nl: int32(nl)}
	sh.mu.Lock()
	sh.insert(c.shardBytes, h, e)
	sh.mu.Unlock()
}

func (sh *cacheShard) insert(limit int, h uint64, e cacheEntry) {
	cost := len(e.key) + entryOverhead
	if cost > limit {
		return // larger than a generation: not worth keeping
	}
	if old, ok := sh.young[h]; ok {
		sh.youngBytes -= len(old.key) + entryOverhead
	} else if sh.youngBytes+cost > limit && len(sh.young) > 0 {
		sh.old = sh.young
		sh.young = make(map[uint64]cacheEntry, len(sh.old))
		sh.youngBytes = 0
	}
	sh.young[h] = e
	sh.youngBytes += cost
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
		for _, m := range []map[uint64]cacheEntry{sh.young, sh.old} {
			st.Entries += len(m)
			for _, e := range m {
				st.Bytes += len(e.key) + entryOverhead
			}
		}
		st.Lookups += sh.total
		st.Hits += sh.hits
		sh.mu.Unlock()
	}
	return st
}
