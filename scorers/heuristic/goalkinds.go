package heuristic

import "slices"

// Some goals name nothing the fix touches but say what kind of fix it is, and the kind points
// at lines by their shape: a goal asking to fix spelling at the misspelt lines (spelling.go),
// one asking to fix spelling, grammar or a comment at the prose slips (slips.go), one about
// a dead link at the URLs (links.go), one reporting an undeclared name at the imports
// (imports.go), one reporting a build failure at the imports and file-scope declarations,
// at a lower floor (builds.go), one about format strings at the printf-family calls given a
// variable (formats.go), and in Go one reporting a panic at the unchecked type assertions
// (panics.go) and one asking to handle an error at the errors no one reads (errchecks.go).
// Query's About… flags read the kind from the goal's first line (titleMatches).

// goalKindLift is the floor the lines a goal's kind points at are lifted to, with their own
// score filling the rest: above the comments LiftComments lifts for the same goal
// (commentLift) and above all but the best-matching code. Each rule measured it on the
// Debian fixes' first package half and confirmed it on the other (structural RESULTS.md,
// thirty-seventh, thirty-eighth and fortieth rounds): for declarations 0.9 beat 0.75 and 0.6,
// for spelling 0.8 and 0.97 were lower.
const goalKindLift = 0.9

// LiftGoalKinds raises, in place, the lines the goal's kind points at: misspelt lines and
// prose slips (in docs and code; in code only comments and string literals are read), URLs,
// and in code the import lines, the format calls, the unchecked type assertions and the
// unchecked errors. A line two kinds point at is lifted twice, but a slip, a URL, an
// assertion or an error on a line already found is not counted again. The lines are found
// once per Analysis, by ScoreWithAnalysis, so structural, which lifts its own blend with the
// same Analysis, only reads them.
func (a *Analysis) LiftGoalKinds(lines []string, scores []float64, code bool) {
	if a.kindLines == nil {
		a.kindLines = kindLines(a.Query, lines, code)
		if code && a.Query.AboutBuilds {
			// The build lines no other kind holds (appended to a clipped copy, then cut off).
			a.buildLines = appendMissing(slices.Clip(a.kindLines), buildLines(lines))[len(a.kindLines):]
		}
	}
	for _, i := range a.kindLines {
		scores[i] = goalKindLift + (1-goalKindLift)*scores[i]
	}
	for _, i := range a.buildLines {
		scores[i] = buildLift + (1-buildLift)*scores[i]
	}
}

// BuildLines returns the lines LiftGoalKinds lifts for a goal reporting a build failure
// (builds.go) and for no other kind, in order; nil before LiftGoalKinds or under another goal.
// They are found by their shape, not by the goal's words, so structural still reads a file
// whose other lines match nothing from its head.
func (a *Analysis) BuildLines() []int { return a.buildLines }

// kindLines returns the lines LiftGoalKinds lifts, kind by kind (never nil).
func kindLines(q *Query, lines []string, code bool) []int {
	out := []int{}
	if q.AboutSpelling {
		out = append(out, misspeltLines(lines, code)...)
	}
	if code && q.AboutDeclarations {
		out = append(out, importLines(lines)...)
	}
	if code && q.AboutFormatStrings {
		out = append(out, formatCallLines(lines)...)
	}
	if q.AboutSpelling || q.AboutGrammar || q.AboutComments {
		out = appendMissing(out, slipLines(lines, code))
	}
	if q.AboutLinks {
		out = appendMissing(out, urlLines(lines))
	}
	if code && q.AboutCrashes {
		out = appendMissing(out, uncheckedAssertionLines(lines))
	}
	if code && q.AboutErrorChecks {
		out = appendMissing(out, uncheckedErrorLines(lines))
	}
	return out
}

// appendMissing appends to out the lines of add it does not hold yet.
func appendMissing(out, add []int) []int {
	if len(add) == 0 {
		return out
	}
	have := make(map[int]bool, len(out))
	for _, i := range out {
		have[i] = true
	}
	for _, i := range add {
		if !have[i] {
			out = append(out, i)
		}
	}
	return out
}
