package heuristic_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
)

func termWeight(q *heuristic.Query, text string) (float64, bool) {
	for _, t := range q.Terms {
		if t.Text == text {
			return t.Weight, true
		}
	}
	return 0, false
}

// TestProseWordsReachTheirShortForms: an issue about "dimensions" matches code that says dims,
// more weakly than the word itself; a word the goal writes as code is taken as written, and
// keywords (var, func) are never goal terms by way of a prose word.
func TestProseWordsReachTheirShortForms(t *testing.T) {
	q := heuristic.ParseGoal("the repr loses the dimensions of the variable when a function is applied")
	full, ok := termWeight(q, "dimensions")
	require.True(t, ok)
	short, ok := termWeight(q, "dim")
	require.True(t, ok, "dimensions → dim")
	assert.InDelta(t, 0.3*full, short, 1e-9)
	for _, kw := range []string{"var", "func"} {
		_, ok := termWeight(q, kw)
		assert.False(t, ok, kw)
	}

	a := heuristic.Analyze([]string{
		"    summary = [f'{k}: {v}' for k, v in obj.dims.items()]",
		"    width = max(len(k) for k in names)",
		"    # list the dimensions first",
	}, q)
	assert.Greater(t, a.Lex[0], 0.0, "dims is a short form of a goal word")
	assert.Zero(t, a.Lex[1])
	assert.Greater(t, a.Lex[2], a.Lex[0], "the goal's own word outweighs its short form")

	code := heuristic.ParseGoal("`dimensions` is dropped")
	_, ok = termWeight(code, "dim")
	assert.False(t, ok, "a word written as code is taken as written")

	both := heuristic.ParseGoal("the attributes are lost; attrs should be kept")
	attr, _ := termWeight(both, "attr")
	attrs, _ := termWeight(both, "attrs")
	assert.Greater(t, attrs, attr, "a short form the goal uses itself keeps its own weight")
}

// TestAdjacentWordsReachCompoundNames: two adjacent prose words of a goal reach the name
// made of them, whether written as one word (listdir, through dir), in camelCase or in
// snake_case; punctuation between the words breaks the pair, and a long goal adds a
// bounded number of compounds.
func TestAdjacentWordsReachCompoundNames(t *testing.T) {
	q := heuristic.ParseGoal("list directory contents; the health checks ignore the port")
	for _, c := range []string{"listdir", "listdirectory", "healthchecks", "checksignore"} {
		_, ok := termWeight(q, c)
		assert.True(t, ok, c)
	}
	_, ok := termWeight(q, "contentsthe")
	assert.False(t, ok, "';' separates the words")

	a := heuristic.Analyze([]string{
		"    names = os.listdir(path)",
		"    if cfg.healthChecks.enabled:",
		"    run_health_checks(upstreams)",
		"    names = sorted(entries)",
	}, q)
	for i := 0; i < 3; i++ {
		assert.Greater(t, a.Lex[i], 0.0, i)
	}
	assert.Zero(t, a.Lex[3])

	code := heuristic.ParseGoal("`listDir` directory")
	_, ok = termWeight(code, "listdirdirectory")
	assert.False(t, ok, "a word written as code is a name already")

	countCompounds := func(q *heuristic.Query) int {
		n := 0
		for _, t := range q.Terms {
			if strings.Contains(t.Display, " ") {
				n++
			}
		}
		return n
	}
	cycle := heuristic.ParseGoal(strings.Repeat("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda omicron ", 20))
	assert.Equal(t, 12, countCompounds(cycle), "each distinct pair once")
	var words []string
	for i := 0; i < 300; i++ {
		words = append(words, "word"+string(rune('a'+i/26%26))+string(rune('a'+i%26)))
	}
	assert.Equal(t, 64, countCompounds(heuristic.ParseGoal(strings.Join(words, " "))), "at most 64 compounds")
}
