package heuristic

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGoalNumbers(t *testing.T) {
	for _, tc := range []struct {
		name, goal string
		want       []string
	}{
		{"changed constants", "Increase node spacing (link distance 120→180, charge -400→-600)", []string{"120", "180", "400", "600"}},
		{"status codes", "TestInterceptReplaceStatusWithMatcher: 500 -> 200 with @err matcher", []string{"500", "200"}},
		{"short numbers", "retry 3 times, 10 at most", nil},
		{"versions and decimals", "broke in 5.1.2, works in 5.1.1; value 350.0", nil},
		{"issues, pull requests, paths, ports", "fixes #7810, see /pull/7057, at x.py:123 on localhost:8080", nil},
		{"inside words", "utf8 0x7fb1f3e29d30 commit 318d6bc4b h2c", nil},
		{"at the ends", "123 and 4567", []string{"123", "4567"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, goalNumbers(tc.goal))
		})
	}
}

// TestGoalNumbersMatchLiterals: a number the goal writes is a term, and the line that holds
// it as a literal outranks a line that differs only in its number.
func TestGoalNumbersMatchLiterals(t *testing.T) {
	q := ParseGoal("fix(viewer): increase node spacing (link distance 120→180)")
	lines := []string{
		".force('link', d3.forceLink(links).distance(120))",
		".force('link', d3.forceLink(links).distance(80))",
		".force('charge', d3.forceManyBody().strength(-400))",
	}
	a := Analyze(lines, q)
	require.Greater(t, a.Lex[1], 0.0)
	assert.Greater(t, a.Lex[0], a.Lex[1], "the line holding 120")
}
