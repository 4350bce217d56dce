package heuristic_test

import (
	"testing"

	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAboutGrammar(t *testing.T) {
	for goal, want := range map[string]bool{
		"fix grammatical error in command.go (#626)": true,
		"Fix grammar in help text":                   true,
		"docs: improve wording of the README":        true,
		"remove duplicated words":                    true,
		"fix the parser\n\nimprove the grammar":      false,
		"Fix the exit code":                          false,
	} {
		assert.Equal(t, want, heuristic.AboutGrammar(goal), goal)
	}
}

func TestLiftSlips(t *testing.T) {
	tests := []struct {
		name string
		line string
		want bool
	}{
		{"two articles", "// etagHasher returns a the hasher we used", true},
		{"a word twice", "// call the the handler first", true},
		{"twice across case", "/* This this is wrong */", true},
		{"bare contraction", "# not shown because thats not possible", true},
		{"bare contraction in a string", `msg := "you dont need to"`, true},
		{"contraction with its apostrophe", "// that's not possible", false},
		{"an English word (cant)", "// the cant of the trade", false},
		{"twice across punctuation", "// it is, is it not", false},
		{"twice in code", "var foo foo", false},
		{"twice in a name, not prose", "x := obj.the(the)", false},
		{"plain comment", "// returns the hasher", false},
	}
	q := heuristic.ParseGoal("chore: fix minor issue in comment (#7140)")
	require.True(t, q.AboutComments)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := []string{"package x", tt.line}
			scores := make([]float64, len(lines))
			heuristic.Analyze(lines, q).LiftGoalKinds(lines, scores, true)
			assert.Zero(t, scores[0])
			if tt.want {
				assert.InDelta(t, 0.9, scores[1], 1e-9)
			} else {
				assert.Zero(t, scores[1])
			}
		})
	}
}

func TestSlipGoals(t *testing.T) {
	lines := []string{"// the the end"}
	for goal, want := range map[string]bool{
		"Fix some typos (mostly found by codespell)": true,
		"fix grammatical error in command.go":        true,
		"docs: fix incomplete JSDoc comment":         true,
		"fix the exit code":                          false,
	} {
		scores := make([]float64, 1)
		heuristic.Analyze(lines, heuristic.ParseGoal(goal)).LiftGoalKinds(lines, scores, true)
		assert.Equal(t, want, scores[0] > 0, goal)
	}
}

func TestSlipOnAMisspeltLineLiftedOnce(t *testing.T) {
	lines := []string{"// the the recieve buffer"}
	scores := make([]float64, 1)
	heuristic.Analyze(lines, heuristic.ParseGoal("Fix some typos")).LiftGoalKinds(lines, scores, true)
	assert.InDelta(t, 0.9, scores[0], 1e-9)
}
