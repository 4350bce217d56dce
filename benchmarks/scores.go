package benchmarks

import (
	"context"
	"encoding/json"
	"io"
	"slices"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// CaseScores is one scorer's per-line scores on one case, with what is needed to study them
// without rerunning anything: the gold lines, each line's price and the rank of the best gold
// line. Its JSON form is the documented schema of `pruner bench --scores`.
type CaseScores struct {
	// Index is the case's position in Config.Cases (not written: callers order by it).
	Index      int    `json:"-"`
	Case       string `json:"case"`
	Scorer     string `json:"scorer"`
	SourceType string `json:"source_type"`
	Dataset    string `json:"dataset"`
	Path       string `json:"path,omitempty"`
	GoldLines  []int  `json:"gold_lines"`
	// BestGoldRank is where the best-scored gold line stands when the lines are ranked best
	// first, ties by position (1 is first); 0 when the case has no gold line or the scorer
	// failed. A miss with a small rank is one the engine's selection could still have kept; a
	// large rank is a miss of the scores.
	BestGoldRank int `json:"best_gold_rank"`
	// LineTokens is each line's exact price with its newline, as the engine prices it in
	// budget mode (markers not included).
	LineTokens []int     `json:"line_tokens"`
	Scores     []float64 `json:"scores"`
	Warnings   []string  `json:"warnings,omitempty"`
	// Error is the scorer's failure (then Scores is empty): the engine fails open on it.
	Error string `json:"error,omitempty"`
}

// scoreCase asks each scorer for the case's scores, the way the engine asks (lines without a
// trailing "\r", the case's goal, source type and path), each call bounded by cfg.Timeout.
// lineTokens are the lines' prices.
func scoreCase(ctx context.Context, cfg *Config, scorers []engine.Scorer, c *Case, index int, content []string, lineTokens []int) ([]CaseScores, error) {
	out := make([]CaseScores, 0, len(scorers))
	for si, s := range scorers {
		sctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
		resp, err := s.Score(sctx, &engine.ScoreRequest{Lines: content, Goal: c.GoalHint, SourceType: c.SourceType, Path: c.Path})
		cancel()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		cs := CaseScores{
			Index: index, Case: c.ID, Scorer: cfg.Scorers[si], SourceType: string(c.SourceType), Dataset: c.Dataset,
			Path: c.Path, GoldLines: slices.Clone(c.GoldLines), LineTokens: lineTokens, Scores: []float64{},
		}
		switch {
		case err != nil:
			cs.Error = err.Error()
		case resp == nil || len(resp.Scores) != len(content):
			cs.Error = "scorer returned no score for some lines"
		default:
			cs.Scores = slices.Clone(resp.Scores)
			cs.Warnings = slices.Clone(resp.Warnings)
			cs.BestGoldRank = bestGoldRank(cs.Scores, c.GoldLines)
		}
		out = append(out, cs)
	}
	return out, nil
}

// bestGoldRank is the 1-based rank of the best-ranked gold line (1-based line numbers in
// gold) when lines are ranked as rankLines ranks them (best first, ties by position); 0
// without a gold line in range.
func bestGoldRank(scores []float64, gold []int) int {
	best := -1
	for _, g := range gold {
		if i := g - 1; i >= 0 && i < len(scores) && (best < 0 || scores[i] > scores[best] || (scores[i] == scores[best] && i < best)) {
			best = i
		}
	}
	if best < 0 {
		return 0
	}
	rank := 1
	for i, v := range scores {
		if v > scores[best] || (v == scores[best] && i < best) {
			rank++
		}
	}
	return rank
}

// WriteScores writes score records as JSON Lines, in the order given.
func WriteScores(w io.Writer, recs []CaseScores) error {
	enc := json.NewEncoder(w)
	for i := range recs {
		if err := enc.Encode(&recs[i]); err != nil {
			return err
		}
	}
	return nil
}
