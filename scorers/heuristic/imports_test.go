package heuristic_test

import (
	"testing"

	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAboutDeclarations(t *testing.T) {
	for goal, want := range map[string]bool{
		"Fix FTBFS with -Werror=implicit-function-declaration": true,
		"fix implicit declaration of function 'strlen'":        true,
		"Add missing includes":                                 true,
		"'memcpy' was not declared in this scope":              true,
		"error: cannot find symbol":                            true,
		"undefined reference to `pthread_create'":              true,
		"ImportError while loading conftest":                   false,
		"fix: a declaration order bug":                         false,
	} {
		assert.Equal(t, want, heuristic.AboutDeclarations(goal), goal)
	}
}

func TestLiftImports(t *testing.T) {
	lines := []string{
		`#include <stdio.h>`,                   // 0
		`import os`,                            // 1
		`from a.b import c`,                    // 2
		`import (`,                             // 3
		`	"fmt"`,                               // 4
		`)`,                                    // 5
		`using System.IO;`,                     // 6
		`use std::io;`,                         // 7
		`const fs = require("fs")`,             // 8
		`int main(void) { return strlen(s); }`, // 9
		`// we import nothing else`,            // 10
	}
	q := heuristic.ParseGoal("Fix FTBFS: implicit declaration of function strlen")
	require.True(t, q.AboutDeclarations)
	scores := make([]float64, len(lines))
	heuristic.Analyze(lines, q).LiftGoalKinds(lines, scores, true)
	for i, v := range scores {
		if i <= 8 {
			assert.InDelta(t, 0.9, v, 1e-9, "line %d: %s", i, lines[i])
		} else {
			assert.Zero(t, v, "line %d: %s", i, lines[i])
		}
	}
	other := make([]float64, len(lines))
	heuristic.Analyze(lines, heuristic.ParseGoal("fix the exit code of main")).LiftGoalKinds(lines, other, true)
	assert.Equal(t, make([]float64, len(lines)), other, "no such goal, no lift")
}
