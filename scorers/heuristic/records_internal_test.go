package heuristic

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestDiffBody: a hunk's lines are the counts its header announces, so a removed line that
// reads like a file header ("--- x") stays in its hunk and the next file's "--- " does not.
func TestDiffBody(t *testing.T) {
	lines := []string{
		"--- a.md", "+++ a.md", "@@ -1,3 +1,2 @@",
		" title", "--- rule", " text",
		"--- b.md", "+++ b.md", "@@ -1 +1,2 @@",
		" x", "+y", "\\ No newline at end of file",
	}
	assert.Equal(t, []bool{false, false, false, true, true, true, false, false, false, true, true, true}, diffBody(lines))
	old, new := hunkSpan("@@ -10 +12,7 @@ func f() {")
	assert.Equal(t, [2]int{1, 7}, [2]int{old, new})
}
