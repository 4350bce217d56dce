package heuristic

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestGoalAndLineSplitAgree: a goal identifier and the same identifier in a line must yield
// the same terms, or matches are silently lost.
func TestGoalAndLineSplitAgree(t *testing.T) {
	for _, id := range []string{"getHTTPServer", "parse_header", "utf8Decode", "XMLHttpRequest", "__init__", "a_b", "ID", "v2Beta3", "snake_case_and_camelCase"} {
		parts, joined := identParts(id)
		var want []termHash
		for _, p := range parts {
			want = append(want, hashString(p))
		}
		if len(parts) > 1 {
			want = append(want, hashString(joined))
		}
		assert.Equal(t, want, appendTerms(nil, id), id)
	}
	parts, _ := identParts("getHTTPServerV2")
	assert.Equal(t, []string{"get", "http", "server"}, parts, "one-letter parts are dropped")
}
