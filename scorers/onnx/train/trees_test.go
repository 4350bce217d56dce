package train

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/linefeat"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBoostLearnsAnInteraction: gold lines are those late in the file (pos > 0.5) AND short
// (chars_log < 2); the base logits know nothing, other columns are noise. The trees must
// split on the two columns first and rank gold above the rest, which one linear term cannot.
func TestBoostLearnsAnInteraction(t *testing.T) {
	F := linefeat.NumFeatures
	pos, chars := column("pos"), column("chars_log")
	rng := rand.New(rand.NewPCG(1, 2))
	var data []*caseData
	var logits [][]float64
	for c := 0; c < 40; c++ {
		d := &caseData{kind: 1, file: "synthetic"}
		for i := 0; i < 60; i++ {
			row := make([]float32, F)
			for f := range row {
				row[f] = rng.Float32()
			}
			row[pos] = rng.Float32()
			row[chars] = 4 * rng.Float32()
			y := float32(0)
			if row[pos] > 0.5 && row[chars] < 2 {
				y = 1
				d.pos++
			}
			d.x = append(d.x, row...)
			d.y = append(d.y, y)
			d.w = append(d.w, 1)
			d.cost = append(d.cost, 10)
		}
		data = append(data, d)
		logits = append(logits, make([]float64, len(d.y)))
	}
	cfg := DefaultConfig()
	cfg.Trees, cfg.Depth, cfg.Shrink = 30, 2, 0.3
	trees, err := boost(context.Background(), data, logits, fileWeights(data), cfg)
	require.NoError(t, err)
	require.Len(t, trees, 30)
	for _, tr := range trees[:3] { // later trees fit what little is left, noise included
		for _, f := range tr.Features {
			assert.Contains(t, []int{pos, chars}, f, "an early tree split on a noise column")
		}
	}
	// Every gold row outranks every other row of its case, through Tree.eval as the model
	// computes it (not the logits boost kept).
	for ci, d := range data {
		minGold, maxNeg := 1e9, -1e9
		for i := range d.y {
			v := 0.0
			for _, tr := range trees {
				v += float64(tr.eval(d.x[i*F : (i+1)*F]))
			}
			assert.InDelta(t, logits[ci][i], v, 1e-4)
			if d.y[i] == 1 {
				minGold = min(minGold, v)
			} else {
				maxNeg = max(maxNeg, v)
			}
		}
		if d.pos > 0 {
			assert.Greater(t, minGold, maxNeg, "case %d", ci)
		}
	}
}

func TestBoostWithoutTreesOrDataIsEmpty(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Trees = 0
	trees, err := boost(context.Background(), []*caseData{{kind: 1}}, [][]float64{nil}, []float64{1}, cfg)
	require.NoError(t, err)
	assert.Empty(t, trees)
}
