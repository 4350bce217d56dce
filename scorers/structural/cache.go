package structural

import (
	"container/list"
	"hash/maphash"
	"slices"
	"sync"
)

// outlineCache keeps the outlines of recently parsed sources. An outline depends on the
// source alone, not on the goal, and agents read the same files again and again with new
// goals; tree-sitter's parse is most of this scorer's cost, so a hit saves nearly all of it.
// Bounded in entries, least recently used first out; safe for concurrent use.
type outlineCache struct {
	mu    sync.Mutex
	seed  maphash.Seed
	max   int
	lru   *list.List // of *cacheEntry, front = most recent
	byKey map[cacheKey]*list.Element
}

type cacheKey struct {
	lang string
	hash uint64
	size int
}

type cacheEntry struct {
	key  cacheKey
	o    *outline
	warn string
}

// outlineCacheEntries bounds the cache; an outline is a few KB, so this is a few MB at most.
const outlineCacheEntries = 512

func newOutlineCache(max int) *outlineCache {
	return &outlineCache{seed: maphash.MakeSeed(), max: max, lru: list.New(), byKey: map[cacheKey]*list.Element{}}
}

// keyLines keys the outline of lines in lang by their source (the lines joined by "\n"),
// hashed without joining them: a read of a file whose outline is cached needs no copy of
// its source (maphash's value depends only on the bytes written, not on how they are split).
func (c *outlineCache) keyLines(lang string, lines []string) cacheKey {
	var h maphash.Hash
	h.SetSeed(c.seed)
	size := max(len(lines)-1, 0)
	for i, l := range lines {
		if i > 0 {
			h.WriteByte('\n')
		}
		h.WriteString(l)
		size += len(l)
	}
	return cacheKey{lang: lang, hash: h.Sum64(), size: size}
}

// get returns a private copy of the cached outline (callers shift windows in place).
func (c *outlineCache) get(k cacheKey) (*outline, string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[k]
	if !ok {
		return nil, "", false
	}
	c.lru.MoveToFront(el)
	e := el.Value.(*cacheEntry)
	return e.o.clone(), e.warn, true
}

func (c *outlineCache) put(k cacheKey, o *outline, warn string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[k]; ok {
		c.lru.MoveToFront(el)
		return
	}
	var stored *outline
	if o != nil {
		stored = o.clone()
	}
	c.byKey[k] = c.lru.PushFront(&cacheEntry{key: k, o: stored, warn: warn})
	for c.lru.Len() > c.max {
		old := c.lru.Remove(c.lru.Back()).(*cacheEntry)
		delete(c.byKey, old.key)
	}
}

// clone deep-copies an outline (nil stays nil).
func (o *outline) clone() *outline {
	if o == nil {
		return nil
	}
	// Clones, so a nil slice stays nil: a cached outline equals a fresh parse's.
	c := &outline{units: slices.Clone(o.units), keys: slices.Clone(o.keys)}
	for k := range c.units {
		if b := c.units[k].blocks; b != nil {
			c.units[k].blocks = append(b[:0:0], b...)
		}
	}
	return c
}
