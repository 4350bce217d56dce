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
	c.created("s1")
	require.NotNil(t, c.use["s1"])
	assert.Equal(t, 1, c.use["s1"].busy, "the call in flight is counted")
	c.end("s1")
	assert.Equal(t, 0, c.use["s1"].busy)
	assert.Contains(t, c.use, "s1", "a created session stays known when idle")

	c.begin("never-given")
	c.end("never-given")
	assert.NotContains(t, c.use, "never-given", "an id no session has leaves no entry")
}
