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
	goal := "Shutdown hangs when `closeIdleConns` never reports quiescent"
	q := ParseGoal(goal)
	assert.Same(t, q, ParseGoal(goal))
	fresh := parseGoal(goal)
	assert.Equal(t, fresh.Terms, q.Terms)
	assert.Equal(t, fresh.AboutComments, q.AboutComments)

	long := strings.Repeat("parse_header fails on folded lines ", maxCachedGoal/20)
	assert.NotSame(t, ParseGoal(long), ParseGoal(long))

	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 3 * maxCachedGoals {
				ParseGoal(fmt.Sprintf("goal %d of worker %d", i, g))
			}
		}()
	}
	wg.Wait()
	goals.mu.Lock()
	defer goals.mu.Unlock()
	assert.LessOrEqual(t, len(goals.m), maxCachedGoals)
}
