package heuristic

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A cached query is the one a fresh parse gives, shared between callers, and the cache stays
// bounded in goals and in bytes; an issue pasted whole is cached, and only goals past what a
// query reads are parsed every time.
func TestGoalCache(t *testing.T) {
	c := newGoalCache()
	goal := "Shutdown hangs when `closeIdleConns` never reports quiescent"
	q := c.parse(goal)
	assert.Same(t, q, c.parse(goal))
	fresh := parseGoal(goal)
	assert.Equal(t, fresh.Terms, q.Terms)
	assert.Equal(t, fresh.AboutComments, q.AboutComments)

	issue := strings.Repeat("parse_header fails on folded lines ", 20<<10/35) // 20 KB
	assert.Same(t, c.parse(issue), c.parse(issue))
	huge := strings.Repeat("parse_header fails on folded lines ", 2*maxGoalBytes/35)
	assert.NotSame(t, c.parse(huge), c.parse(huge))

	// Long goals fill the byte budget long before the count.
	c = newGoalCache()
	c.maxBytes = 20 << 10
	for i := range 12 {
		c.parse(fmt.Sprintf("%d %s", i, strings.Repeat("header ", 3<<10/7)))
		c.mu.Lock()
		assert.LessOrEqual(t, c.bytes, c.maxBytes)
		assert.Less(t, len(c.m), 7, "six 3 KB goals fit in 20 KB")
		n := 0
		for g := range c.m {
			n += len(g)
		}
		assert.Equal(t, n, c.bytes, "the byte count is the cached goals' length")
		c.mu.Unlock()
	}

	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 3 * maxCachedGoals {
				c.parse(fmt.Sprintf("goal %d of worker %d", i, g))
			}
		}()
	}
	wg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	assert.LessOrEqual(t, len(c.m), maxCachedGoals)
}

// TestQueryMemo: what another scorer derives from a goal is computed once per cached query,
// under concurrent callers, and a Query not made by ParseGoal computes it every time.
func TestQueryMemo(t *testing.T) {
	c := newGoalCache()
	goal := "move the pid file out of /var/run"
	type key struct{}
	var calls atomic.Int32
	derive := func() any { calls.Add(1); return strings.Fields(goal) }
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			assert.Equal(t, strings.Fields(goal), c.parse(goal).Memo(key{}, derive))
		})
	}
	wg.Wait()
	assert.Equal(t, int32(1), calls.Load(), "one computation for the cached query")
	type other struct{}
	assert.Equal(t, 7, c.parse(goal).Memo(other{}, func() any { return 7 }), "keys do not collide")

	var zero Query
	zero.Memo(key{}, derive)
	zero.Memo(key{}, derive)
	assert.Equal(t, int32(3), calls.Load(), "no memo without ParseGoal")
}
