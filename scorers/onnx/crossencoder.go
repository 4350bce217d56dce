package onnx

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/hftok"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/manifest"
	ort "github.com/yalue/onnxruntime_go"
)

// PairText is the second sequence a cross-encoder reads for line i: the line between
// ContextLines lines on each side, joined by newlines, with blank lines in the window kept
// (they carry structure). Exported so tests and operators can see exactly what is scored.
func PairText(lines []string, i, context int) string {
	lo, hi := max(0, i-context), min(len(lines), i+context+1)
	return strings.Join(lines[lo:hi], "\n")
}

// Batch is a padded batch of encoded pairs, row-major [rows, width].
type Batch struct {
	Rows, Width int
	IDs         []int64
	Mask        []int64
	TypeIDs     []int64
}

// EncodeBatch tokenizes (goal, PairText) for lines [from, to), truncating each pair to
// maxLen tokens and padding to the longest pair of the batch, or to width when width > 0
// (a model with a fixed sequence length; width must be at least maxLen). It checks ctx
// before each pair, since one pair of long lines can take a while, and returns ctx.Err().
func EncodeBatch(ctx context.Context, tok *hftok.Tokenizer, goal string, lines []string, from, to, context, maxLen, width int) (*Batch, error) {
	encs := make([]hftok.Encoding, 0, to-from)
	fixed := width > 0
	width = max(width, 1)
	goal = clipText(goal, maxLen)
	for i := from; i < to; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e := tok.EncodePair(goal, clipText(PairText(lines, i, context), maxLen), maxLen)
		if !fixed {
			width = max(width, len(e.IDs))
		}
		encs = append(encs, e)
	}
	b := &Batch{Rows: len(encs), Width: width}
	b.IDs = make([]int64, b.Rows*width)
	b.Mask = make([]int64, b.Rows*width)
	b.TypeIDs = make([]int64, b.Rows*width)
	for r, e := range encs {
		row := r * width
		for k := 0; k < width; k++ {
			if k < len(e.IDs) {
				b.IDs[row+k], b.Mask[row+k], b.TypeIDs[row+k] = e.IDs[k], 1, e.TypeIDs[k]
			} else {
				b.IDs[row+k] = tok.PadID()
			}
		}
	}
	return b, nil
}

// clipBytesPerToken bounds the bytes one kept token can stand for in clipText.
const clipBytesPerToken = 64

// clipText cuts s, when it is longer than maxLen*clipBytesPerToken bytes, at the first
// ASCII letter or digit followed by a space, tab or newline from that length on, so that a
// megabyte line is not tokenized only for truncation to keep maxLen tokens of it.
//
// The tokens of the cut text are then a prefix of those of s: every normalizer here maps
// characters one by one (or, for NFC/NFKC, never composes across an ASCII space), and
// every pre-tokenizer ends a word at that letter or digit before a space in both texts. As
// truncation keeps a prefix of each side and depends only on how many tokens each side has
// up to maxLen, and on which side is longer when both are over half the budget (it gets the
// odd token, hftok's longestFirst), the encoding is unchanged whenever the cut text still has
// maxLen tokens, that is for any text averaging under 64 bytes a token, and the other side has
// fewer tokens than the cut one. It may differ only for absurd input: the first maxLen*64
// bytes give fewer than maxLen tokens (WordPiece turns every word over 100 characters into
// one [UNK], so a line of such words does); an added token containing whitespace straddles
// the cut; or the goal too has more than maxLen tokens and the cut changes which side is the
// longer, when the odd token of the budget goes to the other side. maxLen <= 0 (no limit) or
// a shorter s: s as is.
func clipText(s string, maxLen int) string {
	if maxLen <= 0 || len(s) <= maxLen*clipBytesPerToken {
		return s
	}
	for p := maxLen * clipBytesPerToken; p < len(s); p++ {
		switch s[p] {
		case ' ', '\t', '\n':
			if c := s[p-1]; 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
				return s[:p]
			}
		}
	}
	return s
}

// padRows grows b to rows rows with copies of its first row, for a model with a fixed batch
// size: a copy of a real pair cannot make the model misbehave as an all-padding row might
// (a fully masked attention row), and its score is dropped.
func (b *Batch) padRows(rows int) {
	w := b.Width
	for ; b.Rows < rows; b.Rows++ {
		b.IDs = append(b.IDs, b.IDs[:w]...)
		b.Mask = append(b.Mask, b.Mask[:w]...)
		b.TypeIDs = append(b.TypeIDs, b.TypeIDs[:w]...)
	}
}

// crossEncoderDims returns the batch size and sequence length the model's inputs fix (0:
// dynamic), refusing inputs that fix them differently or a sequence too short for a pair.
func crossEncoderDims(man *manifest.Manifest, ins []ort.InputOutputInfo) (batch, seq int, err error) {
	var first manifest.Tensor
	for i, in := range man.Inputs {
		b, q := fixedDim(in, ins, 0), fixedDim(in, ins, 1)
		if i == 0 {
			first, batch, seq = in, b, q
			continue
		}
		if b != batch || q != seq {
			return 0, 0, fmt.Errorf("%w: inputs %q (shape %v) and %q (shape %v) disagree on their dimensions",
				ErrShapeMismatch, first.Name, graphShape(first, ins), in.Name, graphShape(in, ins))
		}
	}
	if seq > 0 && seq < 8 {
		return 0, 0, fmt.Errorf("%w: input %q has shape %v: a fixed sequence length under 8 leaves no room for a pair",
			ErrShapeMismatch, first.Name, graphShape(first, ins))
	}
	return batch, seq, nil
}

func (s *Scorer) scoreCrossEncoder(ctx context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	ce := s.man.CrossEncoder
	n := len(req.Lines)
	size, maxLen := ce.BatchSize, ce.MaxLength
	if s.fixedBatch > 0 {
		size = s.fixedBatch
	}
	if s.fixedSeq > 0 {
		maxLen = min(maxLen, s.fixedSeq)
	}
	scores := make([]float64, n)
	for from := 0; from < n; from += size {
		to := min(n, from+size)
		b, err := EncodeBatch(ctx, s.tok, req.Goal, req.Lines, from, to, ce.ContextLines, maxLen, s.fixedSeq)
		if err != nil {
			return nil, err
		}
		b.padRows(s.fixedBatch)
		out, err := s.runBatch(ctx, b)
		if err != nil {
			return nil, err
		}
		copy(scores[from:to], out[:to-from])
	}
	return &engine.ScoreResponse{Scores: scores}, nil
}

// runBatch runs one padded batch and returns one [0, 1] score per row.
func (s *Scorer) runBatch(ctx context.Context, b *Batch) ([]float64, error) {
	ce := s.man.CrossEncoder
	shape := ort.NewShape(int64(b.Rows), int64(b.Width))
	inputs := make([]ort.Value, 0, len(s.man.Inputs))
	defer func() {
		for _, v := range inputs {
			v.Destroy()
		}
	}()
	for _, in := range s.man.Inputs {
		var data []int64
		switch in.Role {
		case manifest.RoleInputIDs:
			data = b.IDs
		case manifest.RoleAttentionMask:
			data = b.Mask
		case manifest.RoleTokenTypeIDs:
			data = b.TypeIDs
		}
		t, err := ort.NewTensor(shape, data)
		if err != nil {
			return nil, fmt.Errorf("onnx: %s tensor: %w", in.Name, err)
		}
		inputs = append(inputs, t)
	}
	outs := []ort.Value{nil}
	if err := s.run(ctx, inputs, outs); err != nil {
		return nil, err
	}
	defer outs[0].Destroy()
	t, ok := outs[0].(*ort.Tensor[float32])
	if !ok {
		return nil, fmt.Errorf("onnx: %s output is %T, want float32", s.man.Name, outs[0])
	}
	data, shp := t.GetData(), t.GetShape()
	cols := 1
	if len(shp) == 2 {
		cols = int(shp[1])
	}
	if len(data) != b.Rows*cols || ce.ScoreIndex >= cols {
		return nil, fmt.Errorf("onnx: %s output shape %v for %d pairs (score_index %d)", s.man.Name, shp, b.Rows, ce.ScoreIndex)
	}
	out := make([]float64, b.Rows)
	for r := 0; r < b.Rows; r++ {
		row := data[r*cols : (r+1)*cols]
		v := float64(row[ce.ScoreIndex])
		switch ce.Activation {
		case "sigmoid":
			v = 1 / (1 + math.Exp(-v))
		case "softmax":
			mx := math.Inf(-1)
			for _, x := range row {
				mx = math.Max(mx, float64(x))
			}
			sum := 0.0
			for _, x := range row {
				sum += math.Exp(float64(x) - mx)
			}
			v = math.Exp(v-mx) / sum
		}
		if math.IsNaN(v) {
			return nil, fmt.Errorf("onnx: %s returned NaN", s.man.Name)
		}
		out[r] = min(1, max(0, v))
	}
	return out, nil
}
