package heuristic_test

import (
	"testing"

	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAboutCrashes(t *testing.T) {
	for goal, want := range map[string]bool{
		"caddytls: panic when using tls.ca_pool.source.http -> tls.ca (#7393)": true,
		"logging: Fix crash if logging error is not HandlerError (#6777)":      true,
		"Fix segfault on empty input":                                          true,
		"fix nil pointer dereference in Provision":                             true,
		"headers: Allow nil HeaderOps":                                         false,
		"Remove nil arg from zapslog.NewHandler call":                          false,
		"fix the parser\n\nit used to panic":                                   false,
	} {
		assert.Equal(t, want, heuristic.AboutCrashes(goal), goal)
	}
}

func TestLiftUncheckedAssertions(t *testing.T) {
	lines := []string{
		`repl := ctx.Value(caddy.ReplacerCtxKey).(*caddy.Replacer)`, // 0: unchecked
		`s := v.(string)`,                  // 1
		`n := m["k"].(int) + 1`,            // 2
		`h := handlers[i].(http.Handler)`,  // 3
		`repl, ok := r.(*caddy.Replacer)`,  // 4: comma-ok
		`switch x := v.(type) {`,           // 5: a type switch
		`fmt.Println(a.(b))`,               // 6: an assertion inside a call
		`x := f(a, b)`,                     // 7: no assertion
		`re := regexp.MustCompile("\\.(")`, // 8: not after a name
	}
	q := heuristic.ParseGoal("caddytls: panic when using tls.ca_pool.source.http")
	require.True(t, q.AboutCrashes)
	scores := make([]float64, len(lines))
	heuristic.Analyze(lines, q).LiftGoalKinds(lines, scores, true)
	for i, want := range []bool{true, true, true, true, false, false, true, false, false} {
		if want {
			assert.InDelta(t, 0.9, scores[i], 1e-9, "line %d: %s", i, lines[i])
		} else {
			assert.Zero(t, scores[i], "line %d: %s", i, lines[i])
		}
	}
	other := make([]float64, len(lines))
	heuristic.Analyze(lines, heuristic.ParseGoal("fix the exit code")).LiftGoalKinds(lines, other, true)
	assert.Equal(t, make([]float64, len(lines)), other, "no such goal, no lift")
}
