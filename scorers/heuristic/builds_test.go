package heuristic_test

import (
	"testing"

	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAboutBuilds(t *testing.T) {
	for _, tc := range []struct {
		name string
		goal string
		want bool
	}{
		{"ftbfs", "Fix FTBFS with GCC-10", true},
		{"ftbfs lower case", "fix ftbfs with gcc 13", true},
		{"build with a compiler", "fix build with gcc 13", true},
		{"compilation with", "Fix compilation with clang 16", true},
		{"fails to build", "openjpeg2 viewer fails to build", true},
		{"build failure", "Fix build failure on 32bit systems", true},
		{"building", "Fixes building with GCC 10", true},
		{"compile error", "Fix opencsv compilation error", true},
		{"compiler version alone", "Avoiding multiple definitions error due to gcc-10", true},
		{"werror", "Fix -Werror=char-subscripts", true},
		{"only the first line", "Fix a crash\n\nFTBFS with gcc-10 too", false},
		{"compiler warnings", "Fix compiler warnings in blackbox.c", false},
		{"a warning flag", "Fixed -Wnewline-eof warning", false},
		{"build as a noun", "Fix handling of empty string for build info module", false},
		{"compiler named, no version", "Fix GCC detection in PGO script", false},
		{"building a thing", "Fix overflow in build_ustar_entry", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, heuristic.AboutBuilds(tc.goal), tc.goal)
		})
	}
}

func TestLiftBuildLines(t *testing.T) {
	lines := []string{
		`#include <stdio.h>`,               // 0 import
		`int verbose;`,                     // 1 global
		`extern char *progname;`,           // 2 extern
		`static int parse(const char *s);`, // 3 prototype
		`typedef struct x x_t; // opaque`,  // 4 with a trailing comment
		`extern "C" {`,                     // 5 extern block
		`int main(void)`,                   // 6 signature, no semicolon
		`{`,                                // 7
		`	int n = parse(progname);`,        // 8 indented statement
		`return n;`,                        // 9 a statement at the margin
		`}`,                                // 10
		`};`,                               // 11
		`/* int old; */`,                   // 12 comment
	}
	q := heuristic.ParseGoal("Fix FTBFS with GCC-10")
	require.True(t, q.AboutBuilds)
	require.False(t, q.AboutDeclarations)
	scores := make([]float64, len(lines))
	scores[8] = 0.5
	a := heuristic.Analyze(lines, q)
	a.LiftGoalKinds(lines, scores, true)
	for i, v := range scores {
		switch {
		case i <= 5:
			assert.InDelta(t, 0.6, v, 1e-9, "line %d: %s", i, lines[i])
		case i == 8:
			assert.InDelta(t, 0.5, v, 1e-9, "line %d: %s", i, lines[i])
		default:
			assert.Zero(t, v, "line %d: %s", i, lines[i])
		}
	}
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5}, a.BuildLines())

	docs := make([]float64, len(lines))
	heuristic.Analyze(lines, q).LiftGoalKinds(lines, docs, false)
	assert.Equal(t, make([]float64, len(lines)), docs, "code only")
}

// TestLiftBuildLinesWithDeclarations: under a goal of both kinds the imports take the
// undeclared-name kind's higher lift once, and the build kind adds the declarations.
func TestLiftBuildLinesWithDeclarations(t *testing.T) {
	lines := []string{`#include <string.h>`, `char *strdup(const char *);`, `	x = strdup(s);`}
	q := heuristic.ParseGoal("Fix FTBFS with -Werror=implicit-function-declaration")
	require.True(t, q.AboutBuilds)
	require.True(t, q.AboutDeclarations)
	scores := make([]float64, len(lines))
	a := heuristic.Analyze(lines, q)
	a.LiftGoalKinds(lines, scores, true)
	assert.InDelta(t, 0.9, scores[0], 1e-9)
	assert.InDelta(t, 0.6, scores[1], 1e-9)
	assert.Zero(t, scores[2])
	assert.Equal(t, []int{1}, a.BuildLines())
}
