package structural

import (
	"bytes"
	"container/list"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
)

// treeCache keeps the syntax trees of recently parsed files by language and path, so that a
// file the agent has just edited is reparsed incrementally: tree-sitter reuses the old tree's
// unchanged subtrees and a one-line edit of a 2,000-line file reparses in a fraction of a
// millisecond instead of ~10 ms (BenchmarkScore, file=edited). The outline cache answers an
// unchanged file; this one answers a changed file at a known path.
//
// A tree is C memory that the bindings do not free reliably, so every tree here is owned by
// exactly one place: the cache, or the request that took it (take removes it). The cache is
// bounded in entries and in its trees' estimated memory (treeCost); what falls out is freed
// by a goroutine of its own
// (freeing a 2,000-line tree takes about a millisecond, which no request needs to wait for),
// and close waits for those.
type treeCache struct {
	mu      sync.Mutex
	cost    int // estimated memory of the trees held (treeCost)
	lru     *list.List
	byKey   map[treeKey]*list.Element
	closed  bool
	freeing sync.WaitGroup
}

type treeKey struct{ lang, path string }

type treeEntry struct {
	key  treeKey
	src  []byte
	tree *sitter.Tree
	cost int
}

const (
	// treeCacheEntries bounds the files whose trees are kept: the ones an agent is editing.
	treeCacheEntries = 32
	// treeCacheMemory bounds the trees' estimated memory. It bounded their sources (8 MB) on
	// the belief that a tree costs a few times its source; a tree costs 17-29 times its
	// source on real Go and Python and up to 250 times on dense code (one-line statements of
	// a few bytes), and 7.7 MB of such sources held 1.9 GB of trees after their requests.
	// Thirty-two ordinary files of 40 KB are estimated at 85 MB, so the entries bound them.
	treeCacheMemory = 256 << 20
	// treeBytesPerToken is a tree's memory per token of its source: measured 70-135 on real
	// Go and Python, up to 250 on dense statements, so treeCost rarely underestimates.
	treeBytesPerToken = 256
	// minSharedShare is the share of a file an edit must leave untouched (common prefix plus
	// suffix) for an incremental reparse; below it the file is parsed afresh.
	minSharedShare = 0.5
)

func newTreeCache() *treeCache {
	return &treeCache{lru: list.New(), byKey: map[treeKey]*list.Element{}}
}

// remove unlinks an entry and returns it; the caller owns its tree. c.mu must be held.
func (c *treeCache) remove(el *list.Element) *treeEntry {
	e := c.lru.Remove(el).(*treeEntry)
	delete(c.byKey, e.key)
	c.cost -= e.cost
	return e
}

// take removes and returns the tree last stored for key with its source; the caller owns it.
func (c *treeCache) take(k treeKey) (*sitter.Tree, []byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[k]
	if !ok {
		return nil, nil, false
	}
	e := c.remove(el)
	return e.tree, e.src, true
}

// put stores tree (parsed from src) for key, taking ownership of it: a tree it does not keep
// (too large, cache closed, or evicted) is freed.
//
// The tree kept is a copy of tree, which is freed: the bindings remember every node a walk
// asked for in a map of the tree's (a Go object per node, tens of bytes each), and the
// outline's walk asks for every top-level statement; kept, those maps held 435 MB of Go heap
// for 7.7 MB of dense sources. A copy shares the C nodes and starts with an empty map.
func (c *treeCache) put(k treeKey, src []byte, tree *sitter.Tree) {
	cost := treeCost(src)
	c.mu.Lock()
	if c.closed || cost > treeCacheMemory/4 {
		c.mu.Unlock()
		c.free(tree)
		return
	}
	walked := tree
	tree = walked.Copy()
	walked.Close() // the C nodes live on in the copy: this releases a reference and the map
	var evicted []*sitter.Tree
	if el, ok := c.byKey[k]; ok {
		evicted = append(evicted, c.remove(el).tree)
	}
	c.byKey[k] = c.lru.PushFront(&treeEntry{key: k, src: src, tree: tree, cost: cost})
	c.cost += cost
	for c.lru.Len() > treeCacheEntries || c.cost > treeCacheMemory {
		evicted = append(evicted, c.remove(c.lru.Back()).tree)
	}
	c.mu.Unlock()
	c.free(evicted...)
}

// free closes trees nobody else holds, in the background; once the cache is closed (a
// request still running when the scorer was closed), at once, so close's wait is never joined
// by a late free.
func (c *treeCache) free(trees ...*sitter.Tree) {
	if len(trees) == 0 {
		return
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		for _, t := range trees {
			t.Close()
		}
		return
	}
	c.freeing.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.freeing.Done()
		for _, t := range trees {
			t.Close()
		}
	}()
}

// close frees every tree and waits for the trees being freed; later puts close their trees
// at once.
func (c *treeCache) close() {
	c.mu.Lock()
	for c.lru.Len() > 0 {
		c.remove(c.lru.Front()).tree.Close()
	}
	c.closed = true
	c.mu.Unlock()
	c.freeing.Wait()
}

// treeCost estimates the memory of src's syntax tree: treeBytesPerToken for each token, a
// token being a run of identifier bytes or one other byte that is not a space. A scan of the
// bytes, done only for a tree the cache is offered.
func treeCost(src []byte) int {
	tokens, word := 0, false
	for _, c := range src {
		w := isIdentByte(c)
		if w && !word || !w && c > ' ' {
			tokens++
		}
		word = w
	}
	return tokens * treeBytesPerToken
}

// editBetween describes old → new as one edit (the span between their common prefix and
// common suffix), and reports whether enough is shared for an incremental reparse to pay.
func editBetween(old, new []byte) (sitter.EditInput, bool) {
	p := commonPrefix(old, new)
	s := commonSuffix(old[p:], new[p:])
	if float64(p+s) < minSharedShare*float64(max(len(old), len(new))) {
		return sitter.EditInput{}, false
	}
	oldEnd, newEnd := len(old)-s, len(new)-s
	return sitter.EditInput{
		StartIndex:  uint32(p),
		OldEndIndex: uint32(oldEnd),
		NewEndIndex: uint32(newEnd),
		StartPoint:  pointAt(old, p),
		OldEndPoint: pointAt(old, oldEnd),
		NewEndPoint: pointAt(new, newEnd),
	}, true
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+8 <= n && bytes.Equal(a[i:i+8], b[i:i+8]) {
		i += 8
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

func commonSuffix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}

// pointAt is the tree-sitter position (row, byte column) of offset off in src.
func pointAt(src []byte, off int) sitter.Point {
	row := bytes.Count(src[:off], []byte{'\n'})
	col := off - (bytes.LastIndexByte(src[:off], '\n') + 1)
	return sitter.Point{Row: uint32(row), Column: uint32(col)}
}
