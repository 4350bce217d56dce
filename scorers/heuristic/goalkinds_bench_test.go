package heuristic_test

import (
	"strings"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
)

// BenchmarkGoalKindLines measures the line search of the goal kinds that read every line of
// real Go code (slips, URLs, type assertions, unchecked errors, file-scope declarations),
// each under its goal.
func BenchmarkGoalKindLines(b *testing.B) {
	lines := benchLines(b, 10000)
	size := int64(len(strings.Join(lines, "\n")))
	for name, goal := range map[string]string{
		"slips":  "chore: fix minor issue in comment",
		"urls":   "chore: fix dead link",
		"panics": "fix panic when the config is empty",
		"errors": "handle error returned by Close",
		"builds": "Fix FTBFS with GCC-10",
	} {
		b.Run(name, func(b *testing.B) {
			q := heuristic.ParseGoal(goal)
			scores := make([]float64, len(lines))
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				heuristic.Analyze(lines, q).LiftGoalKinds(lines, scores, true)
			}
		})
	}
}
