package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRatio6RoundsAsThePythonReference: pruned_ratio is rounded as Python's round(x, 6) does,
// on the float's exact value with ties to even (values from python3 -c 'print(round(a/b, 6))').
func TestRatio6RoundsAsThePythonReference(t *testing.T) {
	for _, tc := range []struct {
		a, b int
		want float64
	}{
		{33, 128, 0.257812}, // an exact tie: to even
		{1, 3, 0.333333},
		{2, 3, 0.666667},
		{5, 8_000_000, 1e-06},
		{0, 7, 0},
		{7, 7, 1},
		{3, 0, 0},
	} {
		assert.Equal(t, tc.want, ratio6(tc.a, tc.b), "%d/%d", tc.a, tc.b)
	}
}
