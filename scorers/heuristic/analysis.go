package heuristic

import (
	"context"
	"math"
	"runtime"
	"slices"
	"sync"
)

// BM25 constants (Robertson's defaults).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// match is one goal term found in one line, with its count there.
type match struct {
	term int32
	tf   float32 // occurrences; a named term inside a longer identifier counts namedPartShare
}

// Analysis is a document scanned against a query: which goal terms each line holds, their
// rarity in the document, and each line's BM25 relevance. Other scorers (structural, the
// line-features model) build on it rather than re-implementing the term model.
type Analysis struct {
	Query *Query
	// Lex is each line's BM25 relevance to the goal, unnormalised (0 for no match).
	Lex []float64
	// IDF is each goal term's inverse document frequency over the lines (0 if absent).
	IDF []float64
	// Length is each line's number of terms.
	Length []int
	// Exact marks lines holding a whole multi-part goal identifier.
	Exact []bool

	matchStart []int32 // matches of line i are matches[matchStart[i]:matchStart[i+1]]
	matches    []match
	df         []int32
	avgLen     float64
	// cited and framed are Query.CitedLines for the request's path (code only; see LiftCites).
	cited  []int
	framed []bool
	// kindLines are the lines LiftGoalKinds lifts (nil: not looked for yet).
	kindLines []int
	// buildLines are the lines a build goal points at that no other kind lifts (see
	// LiftGoalKinds and BuildLines).
	buildLines []int
	// tree and comment are the lines' indentation tree and comment lines when analyze found
	// them beside a large input's scan (nil otherwise; see indentTree and CommentLines).
	// Nothing writes them after analyze returns, so an Analysis is safe to read from
	// several goroutines.
	tree    tree
	comment []bool
}

// indentTree returns the indentation tree of lines, the analysed lines: the one found
// beside the scan, or a new one.
func (a *Analysis) indentTree(lines []string) tree {
	if a.tree.end != nil && len(a.tree.end) == len(lines) {
		return a.tree
	}
	return buildTree(lines)
}

// CommentLines is CommentLines(lines) for the analysed lines of code: the answer found
// beside the scan when there is one (shared: not to be modified), else a new one.
func (a *Analysis) CommentLines(lines []string) []bool {
	if a.comment != nil && len(a.comment) == len(lines) {
		return a.comment
	}
	return CommentLines(lines)
}

// Analyze scans lines against q. It is linear in the input and allocates per line only for
// lines that hold goal terms.
func Analyze(lines []string, q *Query) *Analysis {
	a, _ := analyze(context.Background(), lines, q, "", nil, nil) // never done: no error
	return a
}

// analyze is Analyze for the file at path (whose words count for less: discountPathTerms)
// with a hook that sees every line's term hashes, so a source-type rule (logs' failure
// words) needs no second scan. It looks at ctx every analyzeCheckEvery lines and returns
// ctx's error once ctx is done: the scan is most of a large input's scoring, and a million
// log lines took 220 ms against a 150 ms deadline when it looked only at its end. A large
// input's lines are scanned by several goroutines (scanWorkers), so each may be called
// concurrently, for different lines. While they scan, another goroutine runs alongside
// (when not nil) on the Analysis, to find what does not depend on the scan (the
// indentation tree, the comment lines) in the meantime.
func analyze(ctx context.Context, lines []string, q *Query, path string, each func(i int, hashes []termHash), alongside func(*Analysis)) (*Analysis, error) {
	return analyzeParts(ctx, lines, q, path, each, scanWorkers(lines), alongside)
}

// Release gives the per-line arrays (Lex, Length, Exact, the match offsets) and the
// indentation tree back for the next analysis, and leaves those fields nil. Only the
// Analysis's owner may call it, once it and everything it handed them to are done with
// it: Score for the one it builds, structural for the one it asks ScoreWithAnalysis for.
// Only analyze's scan writes the arrays, and it is over once analyze has returned; the
// tree too, when the goroutine beside the scan built it.
func (a *Analysis) Release() {
	floatBufs.giveBack(a.Lex)
	intBufs.giveBack(a.Length)
	boolBufs.giveBack(a.Exact)
	int32Bufs.giveBack(a.matchStart)
	a.Lex, a.Length, a.Exact, a.matchStart = nil, nil, nil, nil
	if a.tree.end != nil { // built beside the scan, which analyze waited for
		int32Bufs.giveBack(a.tree.parent)
		int32Bufs.giveBack(a.tree.end)
		a.tree = tree{}
	}
}

// analyzeParts is analyze with the lines scanned in k parts, one goroutine each.
func analyzeParts(ctx context.Context, lines []string, q *Query, path string, each func(i int, hashes []termHash), k int, alongside func(*Analysis)) (*Analysis, error) {
	n := len(lines)
	a := &Analysis{
		Query:      q,
		Lex:        floatBufs.borrow(n),
		IDF:        make([]float64, q.Len()),
		Length:     intBufs.borrow(n),
		Exact:      boolBufs.borrow(n),
		matchStart: int32Bufs.borrow(n + 1),
	}
	k = max(1, min(k, n))
	parts := make([]scan, k)
	bounds := partBounds(lines, k)
	var side chan struct{}
	if k == 1 {
		parts[0].run(ctx, a, lines, 0, n, each)
	} else {
		var wg sync.WaitGroup
		for w := range parts {
			lo, hi := bounds[w], bounds[w+1]
			wg.Go(func() { parts[w].run(ctx, a, lines, lo, hi, each) })
		}
		// alongside is not cancellable: it runs on a goroutine of its own, which analyze
		// leaves to finish on its own once ctx is done (it writes only to a, then dropped),
		// so the scan's deadline holds.
		if alongside != nil {
			side = make(chan struct{})
			go func() {
				defer close(side)
				alongside(a)
			}()
		}
		wg.Wait()
	}
	for w := range parts {
		if err := parts[w].err; err != nil {
			return nil, err
		}
	}
	a.df, a.matches = parts[0].df, parts[0].matches
	totalLen, nonBlank := parts[0].totalLen, parts[0].nonBlank
	for w := 1; w < k; w++ {
		p := &parts[w]
		for t, d := range p.df {
			a.df[t] += d
		}
		// The part's line offsets count from its own first match.
		base := int32(len(a.matches))
		for i := bounds[w] + 1; i <= bounds[w+1]; i++ {
			a.matchStart[i] += base
		}
		a.matches = append(a.matches, p.matches...)
		totalLen += p.totalLen
		nonBlank += p.nonBlank
	}
	if side != nil {
		select {
		case <-side:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if nonBlank == 0 {
		return a, nil
	}
	a.avgLen = float64(totalLen) / float64(nonBlank)
	N := float64(nonBlank)
	for t, df := range a.df {
		if df > 0 {
			a.IDF[t] = math.Log(1 + (N-float64(df)+0.5)/(float64(df)+0.5))
		}
	}
	a.discountPathTerms(path)
	for i := range lines {
		a.Lex[i] = a.bm25(a.lineMatches(i), float64(a.Length[i]), a.avgLen)
	}
	return a, nil
}

// partBounds splits lines into k parts of about equal scanning work, bounds[w] to
// bounds[w+1] for part w: the scan's cost follows the bytes, plus a little for each line,
// and a log's lines are uneven (in the bench's CI logs, an even split by lines gave one
// worker 34 KB and the other 162 KB). Every part holds at least one line.
func partBounds(lines []string, k int) []int {
	n := len(lines)
	bounds := make([]int, k+1)
	bounds[k] = n
	if k == 1 {
		return bounds
	}
	total := 0
	for _, l := range lines {
		total += len(l) + lineWork
	}
	i, acc := 0, 0
	for w := 1; w < k; w++ {
		// Part w starts after the line that brings the work so far to w k-ths of the
		// total, and leaves a line at least for each part before and after it.
		for i < n && acc*k < w*total {
			acc += len(lines[i]) + lineWork
			i++
		}
		bounds[w] = min(max(i, bounds[w-1]+1), n-(k-w))
		for i < bounds[w] {
			acc += len(lines[i]) + lineWork
			i++
		}
	}
	return bounds
}

// lineWork is a line's scanning cost in bytes beyond its own: the per-line steps (the
// term buffer, the goal look-ups, the line's bookkeeping). Measured with the logs rule's
// per-line hook: an empty line takes about 50 ns, a line of words 2 to 4 ns a byte more.
const lineWork = 16

// scanWorkers is how many goroutines scan lines: one per processor for an input large
// enough that the scan (most of a large input's scoring) outweighs starting them, else one.
// The parts' results are summed in order, so the analysis is the same bit for bit.
func scanWorkers(lines []string) int {
	k := runtime.GOMAXPROCS(0)
	if k <= 1 || len(lines) < parallelScanLines {
		return 1
	}
	bytes := 0
	for _, l := range lines {
		bytes += len(l)
	}
	return max(1, min(k, maxScanWorkers, bytes/parallelScanBytes))
}

// parallelScanLines and parallelScanBytes are the least lines, and bytes a worker, for which
// the scan is split: 32 KB of code scan in about 0.2 ms on this project's machines
// (BenchmarkScore), far above a goroutine's start, while the HTTP server's usual requests
// (a few hundred lines) stay on one goroutine each and leave the other processors to other
// requests. maxScanWorkers bounds the split on large machines.
const (
	parallelScanLines = 2000
	parallelScanBytes = 32 << 10
	maxScanWorkers    = 8
)

// scan is one goroutine's share of analyze: lines [lo, hi) of a. It writes those lines'
// Length, Exact and matchStart[i+1] into a (matchStart counting from its own first match)
// and keeps its matches, term document frequencies and length totals for analyze to join.
type scan struct {
	matches            []match
	df                 []int32
	totalLen, nonBlank int
	err                error
}

func (s *scan) run(ctx context.Context, a *Analysis, lines []string, lo, hi int, each func(i int, hashes []termHash)) {
	q := a.Query
	s.df = make([]int32, q.Len())
	var line []match
	var hashes, scratch []termHash
	for i := lo; i < hi; i++ {
		if (i-lo)%analyzeCheckEvery == analyzeCheckEvery-1 {
			if s.err = ctx.Err(); s.err != nil {
				return
			}
		}
		l := lines[i]
		line = line[:0]
		hashes = appendTerms(hashes[:0], l)
		if each != nil {
			each(i, hashes)
		}
		exact, named := false, false
		for _, h := range hashes {
			if !q.index.mayHold(h) { // most words: the filter answers without a probe
				continue
			}
			t, ok := q.index.probe(h)
			if !ok {
				continue
			}
			exact = exact || q.Terms[t].Exact
			named = named || q.Terms[t].Named
			found := false
			for k := range line {
				if line[k].term == t {
					line[k].tf++
					found = true
					break
				}
			}
			if !found {
				line = append(line, match{term: t, tf: 1})
			}
		}
		if named {
			scratch = recountNamed(line, l, q, scratch)
		}
		length := len(hashes)
		a.Length[i] = length
		a.Exact[i] = exact
		if length > 0 {
			s.totalLen += length
			s.nonBlank++
		}
		for _, m := range line {
			s.df[m.term]++
		}
		s.matches = append(s.matches, line...)
		a.matchStart[i+1] = int32(len(s.matches))
	}
}

// analyzeCheckEvery is how many lines analyze scans between looks at its context: about
// 1 ms of scanning on this machine's slowest lines.
const analyzeCheckEvery = 4096

// namedPartShare is what one occurrence of a name the goal writes as code (Term.Named: a
// code span, a call, a member) counts inside a longer identifier: a goal that says `template`
// is used as a variable name means the lines that say template, not templateFuncs or
// AddTemplateFunc. Measured in scorers/structural/RESULTS.md (thirty-first round): 0.25 is
// structural's best on the dev sets, 0.5 close to it, 0 loses on swe-bench.
const namedPartShare = 0.25

// recountNamed recounts the occurrences of the goal's named terms among a line's matches,
// word by word: a term standing for a whole identifier counts 1 and one of a longer
// identifier's parts namedPartShare. scratch is reused for a word's hashes.
func recountNamed(line []match, l string, q *Query, scratch []termHash) []termHash {
	for k := range line {
		if q.Terms[line[k].term].Named {
			line[k].tf = 0
		}
	}
	for i := skipNonWord(l, 0); i < len(l); i = skipNonWord(l, i) {
		start := i
		for i < len(l) && wordBytes[l[i]] {
			i++
		}
		// A word's terms are its parts and then, for several parts, its whole form: only the
		// last term stands for the whole identifier.
		scratch = appendTerms(scratch[:0], l[start:i])
		for j, h := range scratch {
			if !q.index.mayHold(h) {
				continue
			}
			t, ok := q.index.probe(h)
			if !ok || !q.Terms[t].Named {
				continue
			}
			share := float32(1)
			if j < len(scratch)-1 {
				share = namedPartShare
			}
			for k := range line {
				if line[k].term == t {
					line[k].tf += share
					break
				}
			}
		}
	}
	return scratch
}

func (a *Analysis) lineMatches(i int) []match { return a.matches[a.matchStart[i]:a.matchStart[i+1]] }

// Terms returns the indexes of the goal terms line i holds.
func (a *Analysis) Terms(i int) []int {
	ms := a.lineMatches(i)
	out := make([]int, len(ms))
	for k, m := range ms {
		out[k] = int(m.term)
	}
	return out
}

func (a *Analysis) bm25(ms []match, length, avg float64) float64 {
	if len(ms) == 0 || avg == 0 {
		return 0
	}
	norm := bm25K1 * (1 - bm25B + bm25B*length/avg)
	s := 0.0
	for _, m := range ms {
		tf := float64(m.tf)
		s += a.Query.Terms[m.term].Weight * a.IDF[m.term] * tf * (bm25K1 + 1) / (tf + norm)
	}
	return s
}

// SpanScore is the BM25 relevance of lines [start, end) taken as one document, with avgLen
// the average length (in terms) of the spans it is compared with. Safe for concurrent use;
// a loop over many spans calls a SpanScorer's Score instead.
func (a *Analysis) SpanScore(start, end int, avgLen float64) float64 {
	return a.SpanScorer().Score(start, end, avgLen)
}

// SpanScorer is SpanScore with its scratch (a term frequency per goal term) kept from call to
// call, for loops over the blocks or definitions of one text: the code scorers call it for
// every span that holds a goal term, and a fresh scratch per call was a fifth of their
// allocations. One SpanScorer is for one goroutine.
type SpanScorer struct {
	a       *Analysis
	tf      []float32
	seen    []bool
	touched []int32
	ms      []match
}

// SpanScorer returns a SpanScorer of a's spans.
func (a *Analysis) SpanScorer() *SpanScorer { return &SpanScorer{a: a} }

// Score is SpanScore.
func (s *SpanScorer) Score(start, end int, avgLen float64) float64 {
	a := s.a
	if a.matchStart[end] == a.matchStart[start] {
		return 0 // no goal term in the span
	}
	// Term frequencies over the span, indexed by goal term; only the touched entries are
	// read back, in term order so the float sum is deterministic, and reset for the next call.
	if s.tf == nil {
		s.tf, s.seen = make([]float32, len(a.IDF)), make([]bool, len(a.IDF))
	}
	s.touched = s.touched[:0]
	length := 0
	for i := start; i < end; i++ {
		length += a.Length[i]
		for _, m := range a.lineMatches(i) {
			if !s.seen[m.term] {
				s.seen[m.term] = true
				s.touched = append(s.touched, m.term)
			}
			s.tf[m.term] += m.tf
		}
	}
	slices.Sort(s.touched)
	s.ms = s.ms[:0]
	for _, t := range s.touched {
		s.ms = append(s.ms, match{term: t, tf: s.tf[t]})
		s.tf[t], s.seen[t] = 0, false
	}
	return a.bm25(s.ms, float64(length), avgLen)
}

// Focus returns the goal terms present in the document, most telling (weight × rarity)
// first, at most k.
func (a *Analysis) Focus(k int) []string {
	type tw struct {
		t string
		w float64
	}
	var best []tw
	for t, idf := range a.IDF {
		if idf > 0 {
			best = append(best, tw{a.Query.Terms[t].Display, idf * a.Query.Terms[t].Weight})
		}
	}
	for i := 1; i < len(best); i++ {
		for j := i; j > 0 && (best[j].w > best[j-1].w || (best[j].w == best[j-1].w && best[j].t < best[j-1].t)); j-- {
			best[j], best[j-1] = best[j-1], best[j]
		}
	}
	out := make([]string, 0, k)
	for _, b := range best {
		if len(out) == k {
			break
		}
		out = append(out, b.t)
	}
	return out
}

// nameWeight is how strongly the goal names a definition called name: the weight × rarity
// of the goal term equal to the whole name (or its single part), 0 if the goal does not.
func (a *Analysis) nameWeight(name string) float64 {
	// appendTerms yields the name's parts and, when it has several, the whole name last: the
	// last hash is the key either way (identParts's joined or single part, without building
	// strings; TestGoalAndLineSplitAgree keeps the two splits equal).
	var key termHash
	if isWord(name) {
		var buf [8]termHash
		hs := appendTerms(buf[:0], name)
		if len(hs) == 0 {
			return 0
		}
		key = hs[len(hs)-1]
	} else { // a JS name with '$': appendTerms would split it, identParts does not
		parts, joined, multi := identParts(name)
		switch {
		case multi:
			key = hashString(joined)
		case len(parts) == 1:
			key = hashString(parts[0])
		default:
			return 0
		}
	}
	t, ok := a.Query.lookup(key)
	if !ok {
		return 0
	}
	return a.Query.Terms[t].Weight * a.IDF[t]
}

// isWord reports whether s is made of identifier bytes only (see wordBytes).
func isWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if !wordBytes[s[i]] {
			return false
		}
	}
	return true
}
