package heuristic

import (
	"strings"
	"testing"
	"unicode/utf8"

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

// TestParseGoalBoundsItsText: a goal is bounded only by the server's body limit, and its
// analysis does not look at the request's context, so only its first maxGoalBytes count: a
// word past them is no term, and the goal parses as its clipped self.
func TestParseGoalBoundsItsText(t *testing.T) {
	head := "closeIdleConns leaks a connection when the transport is closed\n"
	filler := strings.Repeat("the server answers slowly under load ", maxGoalBytes/37+1)
	goal := head + filler + "\nunreachableTailName"
	require.Greater(t, len(goal), maxGoalBytes)
	q := ParseGoal(goal)
	var texts []string
	for _, term := range q.Terms {
		texts = append(texts, term.Text)
	}
	assert.Contains(t, texts, "closeidleconns")
	assert.NotContains(t, texts, "unreachabletailname")
	assert.Equal(t, ParseGoal(clipGoal(goal)).Terms, q.Terms)
	assert.LessOrEqual(t, len(clipGoal(goal)), maxGoalBytes)

	// A goal within the bound is analysed whole; one without spaces is cut on a character.
	assert.Equal(t, head, clipGoal(head))
	runes := clipGoal(strings.Repeat("é", maxGoalBytes))
	assert.True(t, utf8.ValidString(runes))
	assert.Greater(t, len(runes), maxGoalBytes-2)
}
