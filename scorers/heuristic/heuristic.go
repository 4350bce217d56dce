// Package heuristic is the default scorer: lexical relevance to the goal (a BM25-like term
// model over identifier parts, with exact goal identifiers, traceback frames and rarity
// weighted up), carried to the enclosing indentation block and to neighbouring lines so a kept
// line keeps its context, plus per-source-type rules (logs: failure lines, their rarity and
// what leads to them; docs: the entry that matches) and rules for goals that name nothing the
// answer holds (about comments, about spelling with an embedded English word list, about an
// undeclared name, about format strings).
//
// It imports engine and the standard library only.
package heuristic

import (
	"context"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// Threshold is the default keep threshold. Scores are calibrated so that it means "a line
// of a block that clearly matches the goal, or a line that matches it itself".
const Threshold = 0.5

// Scorer is the heuristic scorer. Its only state is a cache of recent goals' queries
// (immutable); it is safe for concurrent use.
type Scorer struct {
	goals *goalCache
}

var (
	_ engine.Scorer    = (*Scorer)(nil)
	_ engine.Describer = (*Scorer)(nil)
)

// New returns the heuristic scorer.
func New() *Scorer { return &Scorer{goals: newGoalCache()} }

// Describe implements engine.Describer.
func (*Scorer) Describe() engine.ScorerInfo {
	return engine.ScorerInfo{
		Name:        "heuristic",
		Description: "lexical relevance (BM25 over identifier parts) spread to blocks and neighbours, with log and docs rules",
		Where:       "in-process",
		Threshold:   Threshold,
	}
}

// Score implements engine.Scorer.
func (s *Scorer) Score(ctx context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	resp, a, err := s.ScoreWithAnalysis(ctx, req)
	if err != nil {
		return nil, err
	}
	Finish(req, resp, a)
	a.Release() // no one else has it
	return resp, nil
}

// Finish turns ScoreWithAnalysis's answer into Score's, in place: comment lines of code are
// damped (DampComments). A scorer that answers as the heuristic from its evidence
// (structural's fallbacks) calls it too.
func Finish(req *engine.ScoreRequest, resp *engine.ScoreResponse, a *Analysis) {
	if req.SourceType != engine.SourceLogs && req.SourceType != engine.SourceDocs {
		a.DampComments(req.Lines, resp.Scores)
	}
}

// ScoreWithAnalysis is Score that also returns the Analysis it built, so a scorer that
// builds on the heuristic (structural) does not analyse the goal and the lines twice. Its
// code scores are the line evidence before Finish, which Score applies last and a scorer
// building on these applies (or its own damping) to its own answer.
func (s *Scorer) ScoreWithAnalysis(ctx context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, *Analysis, error) {
	q := s.goals.parse(req.Goal)
	st, lines := req.SourceType, req.Lines
	gitLog, diff := engine.GitLog(lines), engine.UnifiedDiff(lines)
	var body []bool // a diff's hunk lines
	switch {
	case gitLog:
		// A git log is a list of records to search, newest first: read as a build log, its
		// failure words are commit subjects and its tail is the oldest commit. It is scored
		// as the document it is, whatever it was sent as.
		st = engine.SourceDocs
	case diff:
		// A diff is code, whatever it was sent as, read without its +/-/space column so
		// that indentation makes blocks again.
		st = engine.SourceCode
		body = diffBody(lines)
		lines = withoutDiffColumn(lines, body)
	}
	var each func(i int, hashes []termHash)
	var fail []float64
	var shape []uint64
	if st == engine.SourceLogs {
		// Lent for the call: analyze returns only once every scan goroutine (the writers)
		// is done, and scoreLogs keeps neither.
		fail, shape = floatBufs.borrow(len(lines)), uint64Bufs.borrow(len(lines))
		defer floatBufs.giveBack(fail)
		defer uint64Bufs.giveBack(shape)
		each = func(i int, hashes []termHash) { fail[i], shape[i] = logLine(lines[i], hashes) }
	}
	// Every source type's scoring reads the indentation tree, code's the comment lines too:
	// found beside a large input's scan, they cost no time of their own.
	code := st != engine.SourceLogs && st != engine.SourceDocs
	alongside := func(a *Analysis) {
		a.tree = buildTree(lines)
		if code {
			a.comment = CommentLines(lines)
		}
	}
	a, err := analyze(ctx, lines, q, req.Path, each, alongside)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return nil, nil, err
	}
	var scores []float64
	switch st {
	case engine.SourceLogs:
		// A passing test's messages (go test -v prints them) are no failure evidence.
		passing, failedAt := engine.TestMessages(lines)
		for i, p := range passing {
			if p {
				fail[i], shape[i] = 0, 0
			}
		}
		scores = scoreLogs(lines, a, fail, shape)
		a.LiftCovering(scores)
		liftFailedTestMessages(scores, failedAt)
		liftRaceReports(lines, fail, scores)
		liftTimedOutTests(lines, fail, scores)
		liftTestReports(lines, scores)
		liftPHPUnitReports(lines, scores)
	case engine.SourceDocs:
		scores = scoreStructured(lines, a, docsWeights)
		a.LiftGoalKinds(lines, scores, false)
		a.LiftCovering(scores)
	default:
		scores = scoreCode(lines, a)
		a.LiftComments(lines, scores)
		a.LiftGoalKinds(lines, scores, true)
		a.cited, a.framed = q.CitedLines(req.Path, lines)
		a.LiftCites(lines, scores)
	}
	if diff {
		liftDiffHeads(req.Lines, body, scores)
	}
	if gitLog {
		liftCommitHeads(req.Lines, scores)
	}
	return &engine.ScoreResponse{Scores: scores, Focus: a.Focus(3)}, a, nil
}

// weights balance a line's own match against its block's for a source type.
type weights struct {
	line, block, parentBlock float64
	exactBonus               float64
	// entryHead: a documentation entry's lines score at least this times its head's
	// relevance (liftEntries). docs.dev at 10 / 20 / 30% of tokens, structural 0.537 /
	// 0.684 / 0.755 -> 0.563 / 0.730 / 0.791, the heuristic 0.532 / 0.679 / 0.757 -> 0.557
	// / 0.736 / 0.798; both halves of the pages up (functions.rst alone, 94 cases, down
	// 0.02 at 20%); 1 and 2 were flat or lower at 20% on the half it was chosen on.
	entryHead float64
}

var (
	codeWeights = weights{line: 0.5, block: 0.5, parentBlock: 0.35, exactBonus: 0.2}
	docsWeights = weights{line: 0.25, block: 0.75, parentBlock: 0.3, exactBonus: 0.2, entryHead: 1.5}
)

// strongMatch is the raw relevance that counts as a clear match; normalising by at least
// this keeps a document with only weak matches from scoring them near 1.
const strongMatch = 8.0

// BlockScores returns, for every line, the BM25 relevance of the indentation block it heads
// (0 for leaf lines), and the tree's parent of every line.
func BlockScores(lines []string, a *Analysis) (block []float64, parent []int32) {
	return blockScores(a.indentTree(lines), a)
}

// blockScores is BlockScores on an indentation tree already built. block is lent
// (floatBufs): a caller that does not hand it on gives it back.
func blockScores(t tree, a *Analysis) (block []float64, parent []int32) {
	n := len(t.end)
	block = floatBufs.borrow(n)
	// Prefix counts of matches let blocks without any goal term be skipped cheaply.
	hits := int32Bufs.borrow(n + 1)
	defer int32Bufs.giveBack(hits)
	totalLen, blocks := 0, 0
	for i := 0; i < n; i++ {
		hits[i+1] = hits[i] + a.matchStart[i+1] - a.matchStart[i]
		if t.end[i] > int32(i+1) {
			blocks++
			for j := i; j < int(t.end[i]); j++ {
				totalLen += a.Length[j]
			}
		}
	}
	if blocks == 0 {
		return block, t.parent
	}
	avg := float64(totalLen) / float64(blocks)
	spans := a.SpanScorer()
	for i := 0; i < n; i++ {
		e := int(t.end[i])
		if e > i+1 && hits[e] > hits[i] {
			block[i] = spans.Score(i, e, avg)
		}
	}
	return block, t.parent
}

func scoreStructured(lines []string, a *Analysis, w weights) []float64 {
	n := len(lines)
	t := a.indentTree(lines)
	block, parent := blockScores(t, a)
	defer floatBufs.giveBack(block)
	ctxScore := floatBufs.borrow(n)
	defer floatBufs.giveBack(ctxScore)
	for i := 0; i < n; i++ {
		c := block[i]
		if p := parent[i]; p >= 0 {
			c = max(c, block[p])
			if gp := parent[p]; gp >= 0 {
				c = max(c, w.parentBlock/w.block*block[gp])
			}
		}
		ctxScore[i] = c
	}
	liftEntries(entries(lines, t), a, w.entryHead, ctxScore)
	zl, zc := strongMatch, strongMatch
	for i := 0; i < n; i++ {
		zl = max(zl, a.Lex[i])
		zc = max(zc, ctxScore[i])
	}
	out := floatBufs.borrow(n) // before spreading, which answers in an array of its own
	defer floatBufs.giveBack(out)
	for i := 0; i < n; i++ {
		s := w.line*a.Lex[i]/zl + w.block*ctxScore[i]/zc
		if a.Exact[i] {
			s += w.exactBonus
		}
		out[i] = s
	}
	return spread(out)
}

// spread lets relevance reach the neighbouring lines, so a kept line comes with the lines
// that frame it and selection prefers contiguous runs. Its scores are capped (capTop).
func spread(s []float64) []float64 {
	n := len(s)
	out := make([]float64, n)
	top := 0.0
	for i := 0; i < n; i++ {
		v := s[i]
		for d, f := range [...]float64{0.7, 0.45} {
			if j := i - d - 1; j >= 0 {
				v = max(v, f*s[j])
			}
			if j := i + d + 1; j < n {
				v = max(v, f*s[j])
			}
		}
		out[i] = v
		top = max(top, v)
	}
	capTop(out, top)
	return out
}

// capKnee is where capTop starts to compress scores.
const capKnee = 0.85

// capTop brings scores into [0, 1] in place, top being their maximum. A line's own match,
// its definition's and the exact bonus add up to more than 1 for many lines of a relevant
// definition; cut at 1 they tied, and the budget then kept the cheapest or the earliest of
// them rather than the best (fifteen lines of a function at 1.0, the fixed one among them;
// structural, which blends these scores, could not see the order under the cut either).
// Instead, when top exceeds 1, the scores between capKnee and top are compressed linearly
// into [capKnee, 1]: the best line scores 1 and the others keep their order and relative
// gaps. Scores below the knee, and files whose scores stay within 1, are unchanged, so
// threshold mode keeps what it kept (the heuristic exactly; structural's floors follow a
// definition's lower best: same recall, kept tokens within 0.01 points of the file on
// code.dev and commits.dev). Budgeted recall at 10/20/30% of tokens: heuristic commits.dev
// +0.007/+0.004/+0.004, code.dev +0.002/0/+0.003; structural commits.dev +0.006/+0.0045/0,
// code.dev 0/0/-0.003 (one case); the Debian fix commits (4,111 pooled) heuristic
// +0.012/+0.008/+0.005, structural +0.007/+0.004/+0.002 (the last interval across 0);
// docs.dev and logs.dev unchanged. Knees 0.8 and 0.9 measured close to 0.85 on dev. A
// soft cap per line (exponential above the knee) gained less, dividing the file by top lost
// on structural (structural RESULTS.md, thirty-ninth round).
func capTop(s []float64, top float64) {
	if top <= 1 {
		return
	}
	f := (1 - capKnee) / (top - capKnee)
	for i, v := range s {
		if v > capKnee {
			s[i] = min(1, capKnee+(v-capKnee)*f)
		}
	}
}

// Code weights: a line's own match, its definition's match taken as a whole, and the bonus of
// a definition whose name the goal mentions.
const (
	codeLineW     = 0.35
	codeDefW      = 0.65
	codeNameBoost = 1.0
)

// scoreCode scores each line mostly by the definition (function, method, class) around it,
// taken as one document: the fix for a goal is usually inside one function, and keeping that
// function whole is what an agent needs. Lines outside definitions fall back to their block.
func scoreCode(lines []string, a *Analysis) []float64 {
	n := len(lines)
	t := a.indentTree(lines)
	def, isHeader := definitions(lines, t)
	block, _ := blockScores(t, a)
	defer floatBufs.giveBack(block)
	// Average definition length (in terms) for BM25's length normalisation.
	totalLen, defs := 0, 0
	for i := 0; i < n; i++ {
		if isHeader[i] {
			defs++
			for j := i; j < int(t.end[i]); j++ {
				totalLen += a.Length[j]
			}
		}
	}
	avg := 1.0
	if defs > 0 {
		avg = float64(totalLen) / float64(defs)
	}
	defScore := floatBufs.borrow(n)
	defer floatBufs.giveBack(defScore)
	spans := a.SpanScorer()
	for i := 0; i < n; i++ {
		if !isHeader[i] {
			continue
		}
		// Nested definitions count once: a method's score is its own body's.
		defScore[i] = spans.Score(i, int(t.end[i]), avg)
		if name := defName(lines[i]); name != "" {
			if w := a.nameWeight(name); w > 0 {
				defScore[i] += codeNameBoost * w
			}
		}
	}
	zl, zd := strongMatch, strongMatch
	for i := 0; i < n; i++ {
		zl = max(zl, a.Lex[i])
		zd = max(zd, defScore[i])
	}
	out := floatBufs.borrow(n) // before spreading, which answers in an array of its own
	defer floatBufs.giveBack(out)
	for i := 0; i < n; i++ {
		c := 0.0
		if d := def[i]; d >= 0 {
			c = defScore[d] / zd
			// The enclosing class header and decorators come with a relevant method.
		} else {
			c = block[i] / zd
		}
		s := codeLineW*a.Lex[i]/zl + codeDefW*c
		if a.Exact[i] {
			s += codeWeights.exactBonus
		}
		out[i] = s
	}
	// A relevant definition brings its enclosing headers (class line) along.
	for i := 0; i < n; i++ {
		if isHeader[i] {
			for p := t.parent[i]; p >= 0; p = t.parent[p] {
				out[p] = max(out[p], 0.8*out[i])
			}
		}
	}
	return spread(out)
}
