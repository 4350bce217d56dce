package heuristic

// Lines that hold most of what the goal asks. Docs and logs scores come mostly from blocks
// (docs: a line's own match is a quarter of its score) or from failure evidence and position
// (logs: a fifth), so a line that holds every word of a specific goal ("cache spread" in a
// server log, "configure retries" in a flat page) scored 0.25 to 0.35, under the 0.5
// threshold: in natural mode with no floor, nothing was kept, and in a log the tail
// outranked it.

// coverMin is the share of the goal's weight (the goal terms present in the text, each
// weighed by rarity × goal weight, as Focus ranks them) a line must hold to be lifted; the
// lift runs from coverLow at coverMin to coverHigh for a line holding all of it.
const (
	coverMin  = 0.6
	coverLow  = 0.6
	coverHigh = 0.85
)

// LiftCovering raises the score of each line holding at least coverMin of the goal's weight
// to the lift its share gives, in place.
func (a *Analysis) LiftCovering(scores []float64) {
	total, present := 0.0, 0
	for t, idf := range a.IDF {
		if idf > 0 {
			total += idf * a.Query.Terms[t].Weight
			present++
		}
	}
	if total <= 0 {
		return
	}
	for i := range scores {
		ms := a.lineMatches(i)
		if len(ms) == 0 {
			continue
		}
		held := 0.0
		for _, m := range ms {
			held += a.IDF[m.term] * a.Query.Terms[m.term].Weight
		}
		share := held / total
		if share < coverMin || a.Lex[i] < strongMatch {
			continue
		}
		lift := coverLow + (coverHigh-coverLow)*(share-coverMin)/(1-coverMin)
		scores[i] = max(scores[i], min(1, lift))
	}
}
