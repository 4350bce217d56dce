package structural

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCohesionFloorSparesLongDefinitions: blendCode floors every line of a definition at
// unitCohesion of its best line only up to cohesionLines lines; a longer definition's
// lines keep their own blend, so its bulk cannot outbid a better line elsewhere.
func TestCohesionFloorSparesLongDefinitions(t *testing.T) {
	tests := []struct {
		name      string
		lines     int
		wantFloor bool
	}{
		{name: "short function", lines: 10, wantFloor: true},
		{name: "at the limit", lines: cohesionLines, wantFloor: true},
		{name: "one line over", lines: cohesionLines + 1, wantFloor: false},
		{name: "long function", lines: 2 * cohesionLines, wantFloor: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The definition sits in a file four times its length, so it is never the
			// whole-file unit that has no floor anyway.
			n := 4 * tt.lines
			s := make([]float64, n)
			h := make([]float64, n)
			for i := range n {
				s[i], h[i] = 0.1, 0.1
			}
			s[0], h[0] = 1, 1
			o := &outline{units: []unit{{start: 0, end: tt.lines, bodyStart: 1, role: roleDef, parent: -1}}}
			blendCode(s, h, o)
			want := 0.1
			if tt.wantFloor {
				want = unitCohesion
			}
			for i := 1; i < tt.lines; i++ {
				assert.InDelta(t, want, s[i], 1e-9, "line %d of the definition", i+1)
			}
			assert.InDelta(t, 0.1, s[tt.lines], 1e-9, "the line after the definition has no floor")
		})
	}
}
