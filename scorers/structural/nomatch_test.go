package structural

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// noMatchC is a C file of twenty alike functions after its includes and globals.
func noMatchC() []string {
	var b strings.Builder
	b.WriteString("#include <stdio.h>\n#include <stdlib.h>\n\nint counter;\nstatic char *names[8];\n")
	for i := range 20 {
		fmt.Fprintf(&b, "\nint step_%d(int a)\n{\n\tint b = a * %d;\n\treturn b + 1;\n}\n", i, i+2)
	}
	return engine.SplitLines(b.String())
}

// TestNoMatchLeansOnTheHead: a goal that matches nothing in the file ("Fix Python 3.12
// compatibility" in C) ranks the file's head first, its outline still first among lines at about the
// same place; a goal that matches leaves the order to the match.
func TestNoMatchLeansOnTheHead(t *testing.T) {
	lines := noMatchC()
	line := func(prefix string, nth int) int {
		for i, l := range lines {
			if strings.HasPrefix(l, prefix) {
				if nth == 0 {
					return i
				}
				nth--
			}
		}
		t.Fatalf("no line %q", prefix)
		return -1
	}
	firstBody, lastBody := line("\tint b = a * ", 0), line("\tint b = a * ", 19)
	secondSig := line("int step_1(", 0)
	global := line("int counter;", 0)

	t.Run("nothing matches", func(t *testing.T) {
		s := scoreCode(t, lines, "Fix Python 3.12 compatibility", "src/steps.c").Scores
		assert.Greater(t, s[firstBody], s[lastBody], "the head's body before the same body at the end")
		assert.Greater(t, s[global], s[lastBody], "a global of the head before the last body")
		assert.Greater(t, s[global], s[line("int step_19(", 0)], "the head before the last signature")
		assert.Greater(t, s[secondSig], s[firstBody], "a signature before the body just above it")
	})
	// A build goal lifts the includes and globals by their shape (heuristic/builds.go); the
	// rest of the file still matches nothing, so the head still leads it.
	t.Run("a build goal", func(t *testing.T) {
		s := scoreCode(t, lines, "Fix FTBFS with GCC-10", "src/steps.c").Scores
		assert.Greater(t, s[global], s[line("int step_0(", 0)], "the global before every signature")
		assert.Greater(t, s[line("#include <stdlib.h>", 0)], s[line("int step_0(", 0)], "an include before every signature")
		assert.Greater(t, s[firstBody], s[lastBody], "the head's body before the same body at the end")
		assert.Greater(t, s[secondSig], s[firstBody], "a signature before the body just above it")
	})
	t.Run("a goal that matches", func(t *testing.T) {
		s := scoreCode(t, lines, "the names array overflows", "src/steps.c").Scores
		require.Greater(t, s[line("static char *names", 0)], s[firstBody], "the match leads")
		assert.Equal(t, s[line("\tint b = a * ", 10)], s[lastBody], "no head bonus when the goal matches")
	})
}
