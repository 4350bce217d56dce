package benchmarks

import (
	"context"
	"regexp"
	"strings"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// BaselineReference is the reference implementation's heuristic (CONTRACT-NOTES.md), the one
// the default scorer must clearly beat.
const BaselineReference = "reference"

var (
	_ engine.Scorer    = Reference{}
	_ engine.Describer = Reference{}

	reRefStructure = regexp.MustCompile(`^\s*(?:async\s+)?(?:def|class)\b|^\s*(?:import|from)\b`)
	reRefLogs      = regexp.MustCompile(`(?i)error|exception|traceback`)
	reRefWord      = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]{3,}`)
)

// referenceEdge is how many lines the reference keeps at each end of the text.
const referenceEdge = 30

// Reference reproduces the reference heuristic: it keeps the first and last 30 lines,
// def/class/import lines, lines containing a goal keyword (words of 4+ characters, at most
// 8), for logs lines mentioning error/exception/traceback, then tops up from the start of the
// file. Kept lines score 1; the others score by position from the start, below 0.5, so a
// budget tops up from the start as the reference does.
type Reference struct{}

// Describe implements engine.Describer.
func (Reference) Describe() engine.ScorerInfo {
	return info(BaselineReference, "baseline: the reference implementation's heuristic (edges, def/class/import, goal keywords, log errors)", 0.75)
}

// Score implements engine.Scorer.
func (Reference) Score(_ context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	var keywords []string
	seen := map[string]bool{}
	for _, w := range reRefWord.FindAllString(req.Goal, -1) {
		w = strings.ToLower(w)
		if !seen[w] && len(keywords) < 8 {
			seen[w] = true
			keywords = append(keywords, w)
		}
	}
	n := len(req.Lines)
	s := make([]float64, n)
	for i, l := range req.Lines {
		keep := i < referenceEdge || i >= n-referenceEdge || reRefStructure.MatchString(l) ||
			(req.SourceType == engine.SourceLogs && reRefLogs.MatchString(l))
		if !keep {
			ll := strings.ToLower(l)
			for _, k := range keywords {
				if strings.Contains(ll, k) {
					keep = true
					break
				}
			}
		}
		if keep {
			s[i] = 1
		} else {
			s[i] = 0.5 * float64(n-i) / float64(n)
		}
	}
	var focus []string
	if len(keywords) > 0 {
		focus = keywords[:1]
	}
	return &engine.ScoreResponse{Scores: s, Focus: focus}, nil
}
