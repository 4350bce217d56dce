package server

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSessionCallBeforeItsCreationReturns: a client has its session id once the initialize
// answer is written, so its first call can begin before the request that created the session
// has returned here. That call still counts as in flight (makeRoom never closes a busy
// session); before, begin ignored the unknown id and the session looked idle mid-call.
func TestSessionCallBeforeItsCreationReturns(t *testing.T) {
	c := newSessionCap(nil, 4, nil)
	c.begin("s1")
	c.created("s1", 0)
	require.NotNil(t, c.use["s1"])
	assert.Equal(t, 1, c.use["s1"].busy, "the call in flight is counted")
	c.end("s1", 0)
	assert.Equal(t, 0, c.use["s1"].busy)
	assert.Contains(t, c.use, "s1", "a created session stays known when idle")

	c.begin("never-given")
	c.end("never-given", 0)
	assert.NotContains(t, c.use, "never-given", "an id no session has leaves no entry")
}

// TestIdleSessionsHoldBoundedBodies: the SDK keeps an idle session's latest request body, so
// a hundred sessions left after one large prune each held a hundred bodies. Past maxHeld,
// the least recently used idle sessions go; a busy one, or the one whose call just ended,
// never does.
func TestIdleSessionsHoldBoundedBodies(t *testing.T) {
	c := newSessionCap(nil, 1000, nil)
	c.maxHeld = 100
	for _, id := range []string{"s1", "s2", "s3", "busy"} {
		c.created(id, 10)
	}
	c.begin("busy")
	c.begin("s1")
	c.end("s1", 60)
	assert.Equal(t, int64(90), c.held, "s1's body and three initializes")
	c.begin("s2")
	c.end("s2", 60)
	assert.NotContains(t, c.use, "s3", "the least recently used idle session goes")
	assert.NotContains(t, c.use, "s1", "and the next, until the bodies held fit")
	assert.Contains(t, c.use, "s2", "not the one whose call just ended")
	assert.Contains(t, c.use, "busy", "nor one with a call in flight")
	assert.LessOrEqual(t, c.held, int64(100))
	c.begin("s2")
	c.end("s2", -1) // a GET stream of s2 ends: s2 still holds its POST's body
	assert.Equal(t, int64(60), c.use["s2"].held)
	c.end("busy", 500)
	assert.NotContains(t, c.use, "s2")
	assert.Contains(t, c.use, "busy", "a session is never closed for its own call's body")
	assert.Equal(t, int64(500), c.held)
}
