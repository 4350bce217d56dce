package heuristic

import "strings"

// compoundWeight is the weight of a compound of two adjacent goal words: an identifier made of
// them is the goal's phrase written as a name, stronger evidence than either word (a prose
// word weighs 1 to 1.5). Measured in scorers/structural/RESULTS.md (eleventh round): 1.5 to 3
// give the same recall.
const compoundWeight = 2.0

// maxCompounds bounds the compound terms of a long goal (an issue with logs), taken in the
// goal's order.
const maxCompounds = 64

// appendCompoundTerms adds each pair of adjacent prose words of the goal written as one word,
// the way names are made of phrases: "list directory" reaches listdir, "starts with"
// startswith, "health checks" healthChecks and health_checks (a line's multi-part identifier
// is also a term as a whole, see appendTerms). Short forms count ("list directory" → listdir
// through dir). Pairs of stop words, and words the goal writes as code (already names), are
// skipped; a compound that is a goal term already, or a stop word itself ("without"), is not
// added.
func appendCompoundTerms(goal string, ts []Term) []Term {
	have := make(map[string]bool, len(ts))
	for _, t := range ts {
		have[t.Text] = true
	}
	forms := func(w string) []string {
		out := []string{w}
		for _, v := range variants(w) {
			out = append(out, abbreviations[v]...)
		}
		return out
	}
	added := 0
	// Words are runs of ASCII letters, scanned lazily: a long goal stops costing anything once
	// maxCompounds are found.
	prevStart, prevEnd := -1, -1
	for i := 0; i < len(goal) && added < maxCompounds; {
		if !isASCIILetter(goal[i]) {
			i++
			continue
		}
		start := i
		for i < len(goal) && isASCIILetter(goal[i]) {
			i++
		}
		ps, pe := prevStart, prevEnd
		prevStart, prevEnd = start, i
		// Adjacent means separated by spaces only, not by punctuation or a line break.
		if ps < 0 || strings.Trim(goal[pe:start], " ") != "" {
			continue
		}
		wa, wb := goal[ps:pe], goal[start:i]
		a, b := strings.ToLower(wa), strings.ToLower(wb)
		if len(a) < 3 || len(b) < 3 || IsCodeLike(wa) || IsCodeLike(wb) || (isStopWord(a) && isStopWord(b)) {
			continue
		}
		for _, fa := range forms(a) {
			for _, fb := range forms(b) {
				c := fa + fb
				if len(c) < 6 || have[c] || isStopWord(c) || added >= maxCompounds {
					continue
				}
				have[c] = true
				added++
				ts = append(ts, Term{Text: c, Weight: compoundWeight, Display: wa + " " + wb})
			}
		}
	}
	return ts
}
