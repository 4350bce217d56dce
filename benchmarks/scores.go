package benchmarks

import (
	"encoding/json"
	"io"
	"slices"
)

// CaseScores is one scorer's per-line scores on one case, as the engine received them in the
// run, with what is needed to study them without rerunning anything: the gold lines, each
// line's price and the rank of the best gold line. Its JSON form is the documented schema of
// `pruner bench --scores`.
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
	// first, ties by position (1 is first); 0 when the case has no gold line or there are no
	// scores. A miss with a small rank is one the engine's selection could still have kept; a
	// large rank is a miss of the scores.
	BestGoldRank int `json:"best_gold_rank"`
	// LineTokens is each line's exact price with its newline, as the engine prices it in
	// budget mode (markers not included).
	LineTokens []int     `json:"line_tokens"`
	Scores     []float64 `json:"scores"`
	// Warnings are those of the prune the scores come from, the scorer's among them (under
	// lines accounting, the scorer's).
	Warnings []string `json:"warnings,omitempty"`
	// Error says why there are no scores (then Scores is empty): every prune of the case
	// failed open (the scorer's error or timeout, an input over the size limit), with their
	// warnings; under lines accounting, the scorer's error.
	Error string `json:"error,omitempty"`
}

// newCaseScores is the record of one scorer on case c (Config.Cases[index]): scores nil
// means the scorer gave none, and failure says why.
func newCaseScores(c *Case, index int, scorer string, lineTokens []int, scores []float64, warnings []string, failure string) CaseScores {
	cs := CaseScores{
		Index: index, Case: c.ID, Scorer: scorer, SourceType: string(c.SourceType), Dataset: c.Dataset,
		Path: c.Path, GoldLines: slices.Clone(c.GoldLines), LineTokens: lineTokens, Scores: []float64{},
		Warnings: slices.Clone(warnings),
	}
	if scores == nil {
		cs.Error = failure
		return cs
	}
	cs.Scores = slices.Clone(scores)
	cs.BestGoldRank = bestGoldRank(cs.Scores, c.GoldLines)
	return cs
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
