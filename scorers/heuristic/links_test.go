package heuristic_test

import (
	"testing"

	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAboutLinks(t *testing.T) {
	for goal, want := range map[string]bool{
		"chore: fix dead link (#7136)":         true,
		"Update homepage URL":                  true,
		"docs: fix broken links in the README": true,
		"the wiki link is dead":                true,
		"Fix linking with --as-needed":         false,
		"link against libm":                    false,
		"fix symlink handling\n\nbroken link":  false,
		"Add a link to the changelog":          false,
		"Fix link error with gcc-10":           false,
		"fix link failure on armel":            false,
		"Fix link-time errors":                 false,
		"Fix handling of invalid empty URLs":   false,
		"reject invalid URLs with a space":     false,
		"fix parsing of bad URLs":              false,
	} {
		assert.Equal(t, want, heuristic.AboutLinks(goal), goal)
	}
}

func TestLiftURLs(t *testing.T) {
	lines := []string{
		`// source: https://github.com/spf13/cobra/blob/main/shell_completions.md`, // 0
		`See http://example.org/old for details.`,                                  // 1
		`const base = "ftp://mirror.example/pub"`,                                  // 2
		`u := url.Parse(s) // parses scheme://host`,                                // 3: not a URL
		`return nil`, // 4
	}
	q := heuristic.ParseGoal("chore: fix dead link (#7136)")
	require.True(t, q.AboutLinks)
	scores := make([]float64, len(lines))
	heuristic.Analyze(lines, q).LiftGoalKinds(lines, scores, true)
	for i, want := range []bool{true, true, true, false, false} {
		if want {
			assert.InDelta(t, 0.9, scores[i], 1e-9, "line %d: %s", i, lines[i])
		} else {
			assert.Zero(t, scores[i], "line %d: %s", i, lines[i])
		}
	}
}
