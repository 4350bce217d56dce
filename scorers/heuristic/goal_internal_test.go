package heuristic

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseGoalIsDeterministic: the goal's terms are gathered in a map, whose order Go
// randomises on every walk. Short forms that several words share (dir from directory and
// directories, str from string and strings) took the weight of whichever word the walk met
// first, so the same goal scored differently from run to run.
func TestParseGoalIsDeterministic(t *testing.T) {
	const goal = "Listing a directory of directories drops strings and string buffers from the configuration config"
	first := ParseGoal(goal)
	for range 50 {
		q := ParseGoal(goal)
		require.Equal(t, first.Terms, q.Terms)
	}
}

func TestPathWords(t *testing.T) {
	got := pathWords("caddyconfig/httpCaddyfile/http_server.go")
	var words []string
	for w := range got {
		words = append(words, w)
	}
	assert.ElementsMatch(t, []string{"caddyconfig", "httpcaddyfile", "http", "caddyfile", "httpserver", "server", "go"}, words)
	assert.Nil(t, pathWords(""))
}
