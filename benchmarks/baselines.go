package benchmarks

import (
	"context"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// Baseline names, registered by RegisterBaselines.
const (
	BaselineHead     = "head"
	BaselineTail     = "tail"
	BaselineHeadTail = "head_tail"
	BaselineRandom   = "random"
	BaselineGrep     = "grep"
	BaselineBM25     = "bm25"
)

// Baselines lists the baseline names in report order.
func Baselines() []string {
	return []string{BaselineHead, BaselineTail, BaselineHeadTail, BaselineRandom, BaselineGrep, BaselineBM25, BaselineReference}
}

// Registered lists every name RegisterBaselines registers: the baselines, then the oracle.
func Registered() []string {
	return append(Baselines(), BaselineOracle)
}

// RegisterBaselines adds the baseline scorers and the oracle to reg, so they run through the
// same engine and accounting as real scorers. A name already registered panics, as Register
// does.
func RegisterBaselines(reg *engine.Registry) {
	reg.Register(BaselineHead, Head{})
	reg.Register(BaselineTail, Tail{})
	reg.Register(BaselineHeadTail, HeadTail{})
	reg.Register(BaselineRandom, Random{Seed: 1})
	reg.Register(BaselineGrep, Grep{})
	reg.Register(BaselineBM25, BM25{K1: 1.2, B: 0.75})
	reg.Register(BaselineReference, Reference{})
	reg.Register(BaselineOracle, Oracle{})
}

var (
	_ engine.Scorer    = Head{}
	_ engine.Scorer    = Tail{}
	_ engine.Scorer    = HeadTail{}
	_ engine.Scorer    = Random{}
	_ engine.Scorer    = Grep{}
	_ engine.Scorer    = BM25{}
	_ engine.Describer = Head{}
	_ engine.Describer = Tail{}
	_ engine.Describer = HeadTail{}
	_ engine.Describer = Random{}
	_ engine.Describer = Grep{}
	_ engine.Describer = BM25{}
)

// positionThreshold keeps the better-ranked half of the lines in natural mode, for the
// position baselines whose scores are ranks.
const positionThreshold = 0.5

func info(name, desc string, threshold float64) engine.ScorerInfo {
	return engine.ScorerInfo{Name: name, Description: desc, Where: "in-process", Threshold: threshold}
}

// Head scores lines by position, first line best: a budget keeps the start of the text.
type Head struct{}

// Describe implements engine.Describer.
func (Head) Describe() engine.ScorerInfo {
	return info(BaselineHead, "baseline: the first lines", positionThreshold)
}

// Score implements engine.Scorer.
func (Head) Score(_ context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	n := len(req.Lines)
	s := make([]float64, n)
	for i := range s {
		s[i] = float64(n-i) / float64(n)
	}
	return &engine.ScoreResponse{Scores: s}, nil
}

// Tail scores lines by position, last line best: a budget keeps the end of the text.
type Tail struct{}

// Describe implements engine.Describer.
func (Tail) Describe() engine.ScorerInfo {
	return info(BaselineTail, "baseline: the last lines", positionThreshold)
}

// Score implements engine.Scorer.
func (Tail) Score(_ context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	n := len(req.Lines)
	s := make([]float64, n)
	for i := range s {
		s[i] = float64(i+1) / float64(n)
	}
	return &engine.ScoreResponse{Scores: s}, nil
}

// HeadTail is the observation mask of seed 002: the first and the last lines, each end
// getting half of the budget (at its natural threshold, the first and last quarters). Lines are ranked by the bytes between them and their nearer
// end, so a budget fills both ends at the same pace (bytes stand in for tokens, which a
// scorer does not see).
type HeadTail struct{}

// Describe implements engine.Describer.
func (HeadTail) Describe() engine.ScorerInfo {
	return info(BaselineHeadTail, "baseline: the first and last lines, half the budget each", positionThreshold)
}

// Score implements engine.Scorer.
func (HeadTail) Score(_ context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	n := len(req.Lines)
	s := make([]float64, n)
	if n == 0 {
		return &engine.ScoreResponse{Scores: s}, nil
	}
	// fromHead[i]: bytes of lines before i (plus newlines); fromTail[i]: bytes after i.
	total := 0
	for _, l := range req.Lines {
		total += len(l) + 1
	}
	before := 0
	for i, l := range req.Lines {
		after := total - before - (len(l) + 1)
		// d <= total/2, so scores span [0, 1] and the natural threshold keeps the outer halves.
		d := min(before, after)
		s[i] = max(0, 1-2*float64(d)/float64(total))
		before += len(l) + 1
	}
	return &engine.ScoreResponse{Scores: s}, nil
}

// Random scores lines uniformly at random from a generator seeded with Seed and the case's
// content, so a run is reproducible and two cases do not share a pattern.
type Random struct{ Seed uint64 }

// Describe implements engine.Describer.
func (Random) Describe() engine.ScorerInfo {
	return info(BaselineRandom, "baseline: uniformly random lines (fixed seed)", positionThreshold)
}

// Score implements engine.Scorer.
func (r Random) Score(_ context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	h := fnv.New64a()
	h.Write([]byte(req.Goal))
	for _, l := range req.Lines {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	rng := rand.New(rand.NewPCG(r.Seed, h.Sum64()))
	s := make([]float64, len(req.Lines))
	for i := range s {
		s[i] = rng.Float64()
	}
	return &engine.ScoreResponse{Scores: s}, nil
}

// Grep scores 1 every line that shares a term (see Terms) with the goal and 0 the others;
// at its natural threshold it keeps exactly the matching lines.
type Grep struct{}

// Describe implements engine.Describer.
func (Grep) Describe() engine.ScorerInfo {
	return info(BaselineGrep, "baseline: lines containing any goal term", positionThreshold)
}

// Score implements engine.Scorer.
func (Grep) Score(_ context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	goal := termSet(Terms(req.Goal))
	s := make([]float64, len(req.Lines))
	for i, l := range req.Lines {
		for _, t := range Terms(l) {
			if _, ok := goal[t]; ok {
				s[i] = 1
				break
			}
		}
	}
	return &engine.ScoreResponse{Scores: s}, nil
}

// BM25 ranks each line as a document of the text against the goal's terms (Okapi BM25 with
// the non-negative idf ln(1 + (N-df+0.5)/(df+0.5))), scores normalised by the best line.
type BM25 struct{ K1, B float64 }

// bm25Threshold keeps, in natural mode, lines scoring at least this share of the best line.
const bm25Threshold = 0.3

// Describe implements engine.Describer.
func (BM25) Describe() engine.ScorerInfo {
	return info(BaselineBM25, "baseline: BM25 of each line against the goal", bm25Threshold)
}

// Score implements engine.Scorer.
func (b BM25) Score(_ context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	n := len(req.Lines)
	s := make([]float64, n)
	query := termSet(Terms(req.Goal))
	if n == 0 || len(query) == 0 {
		return &engine.ScoreResponse{Scores: s}, nil
	}
	tfs := make([]map[string]int, n)
	lens := make([]int, n)
	df := map[string]int{}
	total := 0
	for i, l := range req.Lines {
		ts := Terms(l)
		lens[i] = len(ts)
		total += len(ts)
		for _, t := range ts {
			if _, q := query[t]; !q {
				continue
			}
			if tfs[i] == nil {
				tfs[i] = map[string]int{}
			}
			if tfs[i][t] == 0 {
				df[t]++
			}
			tfs[i][t]++
		}
	}
	avg := float64(total) / float64(n)
	if avg == 0 {
		return &engine.ScoreResponse{Scores: s}, nil
	}
	idf := make(map[string]float64, len(df))
	for t, d := range df {
		idf[t] = math.Log(1 + (float64(n)-float64(d)+0.5)/(float64(d)+0.5))
	}
	// Sum each line's terms in one fixed order: float addition is not associative, and map
	// order would make a line's score (and so the engine's ties) change from run to run.
	terms := make([]string, 0, len(idf))
	for t := range idf {
		terms = append(terms, t)
	}
	sort.Strings(terms)
	best := 0.0
	for i, tf := range tfs {
		if tf == nil {
			continue
		}
		for _, t := range terms {
			f, ok := tf[t]
			if !ok {
				continue
			}
			ff := float64(f)
			s[i] += idf[t] * ff * (b.K1 + 1) / (ff + b.K1*(1-b.B+b.B*float64(lens[i])/avg))
		}
		best = max(best, s[i])
	}
	if best > 0 {
		for i := range s {
			s[i] /= best
		}
	}
	return &engine.ScoreResponse{Scores: s, Focus: rarestTerms(idf, 3)}, nil
}

func termSet(ts []string) map[string]struct{} {
	m := make(map[string]struct{}, len(ts))
	for _, t := range ts {
		m[t] = struct{}{}
	}
	return m
}

// rarestTerms returns up to k terms of idf, highest idf first (ties by name), for the
// engine's marker reasons.
func rarestTerms(idf map[string]float64, k int) []string {
	ts := make([]string, 0, len(idf))
	for t := range idf {
		ts = append(ts, t)
	}
	sort.Slice(ts, func(i, j int) bool {
		if idf[ts[i]] != idf[ts[j]] {
			return idf[ts[i]] > idf[ts[j]]
		}
		return ts[i] < ts[j]
	})
	return ts[:min(k, len(ts))]
}
