package heuristic

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A cached query is the one a fresh parse gives, shared between callers, and the cache stays
// bounded; goals over the size limit are parsed every time.
func TestGoalCache(t *testing.T) {
	c := newGoalCache()
	goal := "Shutdown hangs when `closeIdleConns` never reports quiescent"
	q := c.parse(goal)
	assert.Same(t, q, c.parse(goal))
	fresh := parseGoal(goal)
	assert.Equal(t, fresh.Terms, q.Terms)
	assert.Equal(t, fresh.AboutComments, q.AboutComments)

	long := strings.Repeat("parse_header fails on folded lines ", maxCachedGoal/20)
	assert.NotSame(t, c.parse(long), c.parse(long))

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
