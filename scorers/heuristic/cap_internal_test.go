package heuristic

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCapTop(t *testing.T) {
	tests := []struct {
		name string
		in   []float64
		want []float64
	}{
		{"within 1: unchanged", []float64{0, 0.5, 0.9, 1}, []float64{0, 0.5, 0.9, 1}},
		{"above 1: the knee and below unchanged, the top at 1", []float64{0.5, 0.85, 1.15}, []float64{0.5, 0.85, 1}},
		{"above the knee: linear into [knee, 1]", []float64{0.2, 0.9, 1, 1.05, 1.15}, []float64{0.2, 0.875, 0.925, 0.95, 1}},
		{"ties stay ties", []float64{1.1, 1.1, 0.95}, []float64{1, 1, 0.91}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := append([]float64(nil), tt.in...)
			top := 0.0
			for _, v := range s {
				top = max(top, v)
			}
			capTop(s, top)
			assert.InDeltaSlice(t, tt.want, s, 1e-9)
		})
	}
}
