package structural

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestReferenceLines: a line refers to a goal-named definition when one of its identifiers
// is the name, whatever its length or first byte; referenceLines rules most identifiers out
// by first byte and length before the map, and must not rule out a name.
func TestReferenceLines(t *testing.T) {
	long := "a" + strings.Repeat("b", 70) // past the length mask's last bit
	names := map[string]bool{"parseHeader": true, "ok": true, long: true, "été": true, "$el": true}
	tests := []struct {
		name string
		line string
		want bool
	}{
		{"a call", "\tv, err := parseHeader(r)", true},
		{"a part of a longer identifier", "\tparseHeaders(r)", false},
		{"the same length and first byte, another name", "\tparseHeadex(r)", false},
		{"a two-byte name", "if ok {", true},
		{"a name longer than 63 bytes", "x := " + long + "()", true},
		{"a longer name that shares the 63-byte bit", "x := " + long + "c()", false},
		{"a name that starts with a non-ASCII byte", "été = 1", true},
		{"a name that starts with $", "this.$el.focus()", true},
		{"no identifier", "  }) // ", false},
		{"too long to read", "parseHeader(" + strings.Repeat("x", 2000) + ")", false},
	}
	lines := make([]string, len(tests))
	for i, tt := range tests {
		lines[i] = tt.line
	}
	r := referenceLines(lines, nil, names)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, r.line[i], "%q", tt.line)
		})
	}
}
