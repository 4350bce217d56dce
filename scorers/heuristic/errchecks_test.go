package heuristic_test

import (
	"testing"

	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAboutErrorChecks(t *testing.T) {
	for goal, want := range map[string]bool{
		"pki: Handle error immediately after reading root from disk (#7896)": true,
		"fix: add error handling for invalid phase in viewer":                true,
		"fix: handle async spawn errors in waitForWorkerCompletion":          true,
		"check the error returned by Close":                                  true,
		"Don't ignore errors from fsync":                                     true,
		"intercept: fix misleading handle_response error for extra args":     false,
		"Fix error when res.set cannot add charset":                          false,
	} {
		assert.Equal(t, want, heuristic.AboutErrorChecks(goal), goal)
	}
}

func TestLiftUncheckedErrors(t *testing.T) {
	lines := []string{
		`	chain, key, err = ca.Root.Load()`, // 0: the next line does not read err
		`	cert = chain[0]`,                  // 1
		`	data, err := os.ReadFile(p)`,      // 2: checked
		``,                                  // 3
		`	if err != nil {`,                  // 4
		`		return err`,                      // 5
		`	}`,                                // 6
		`	_ = f.Close()`,                    // 7: discarded
		`	n, _ := w.Write(b)`,               // 8: discarded
		`	err = run()`,                      // 9: checked on the next line
		`	return err`,                       // 10
		`	if errs == nil {`,                 // 11: not an assignment
	}
	q := heuristic.ParseGoal("pki: Handle error immediately after reading root from disk")
	require.True(t, q.AboutErrorChecks)
	scores := make([]float64, len(lines))
	heuristic.Analyze(lines, q).LiftGoalKinds(lines, scores, true)
	lifted := map[int]bool{0: true, 7: true, 8: true}
	for i, v := range scores {
		if lifted[i] {
			assert.InDelta(t, 0.9, v, 1e-9, "line %d: %s", i, lines[i])
		} else {
			assert.Zero(t, v, "line %d: %s", i, lines[i])
		}
	}
}
