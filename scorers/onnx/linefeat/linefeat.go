// Package linefeat computes the documented per-line feature vector of the `line-features`
// model input family: lexical relevance to the goal (through package heuristic's term model,
// so improvements there reach the model after a retrain), identifier matches, the indentation
// tree, position, length, neighbourhood and source type.
//
// It has no cgo of its own (the structural scorer's tree-sitter parsers are the only C), so
// the trainer and the runtime scorer share it. It imports engine, scorers/heuristic,
// scorers/structural and the standard library only.
package linefeat

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
	"github.com/mcp-pruner/mcp-pruner/scorers/structural"
)

// Version names the feature set. A model's manifest records the version it was trained on;
// a scorer refuses a model whose version it does not compute.
const Version = "linefeat-v5"

// Names lists the features in column order, documented in models/README.md. Changing the
// list (or what a feature means) requires a new Version and a retrain.
var Names = []string{
	"lex_norm",          // BM25 of the line, / max(strong match, document max)
	"lex_rel",           // BM25 of the line, / document max (0 when nothing matches)
	"lex_log",           // log1p(BM25 of the line)
	"exact",             // line holds a whole multi-part goal identifier
	"term_cover",        // share of the goal terms present in the document that the line holds
	"idf_cover",         // the same, weighted by rarity × goal weight
	"block",             // BM25 of the indentation block the line heads, / document max
	"parent_block",      // the same for the line's enclosing block
	"grandparent_block", // and for the block enclosing that one
	"heuristic",         // the heuristic scorer's final score
	"heuristic_rank",    // share of lines the heuristic scores strictly higher (0 = best)
	"heur_max_w3",       // max heuristic score within ±3 lines
	"heur_mean_w10",     // mean heuristic score within ±10 lines
	"lex_max_w3",        // max lex_norm within ±3 lines
	"lex_sum_w10",       // sum of lex_norm within ±10 lines, squashed
	"near_best",         // exp(-distance to the best lexical line / 5)
	"pos",               // (i+1)/n
	"to_end_log",        // log1p(lines after this one) / log1p(n)
	"doc_size",          // log1p(n) / 10
	"chars_log",         // log1p(bytes of the line) / 6
	"blank",             // the line is blank
	"terms_log",         // log1p(terms in the line) / 4
	"indent_log",        // log1p(indentation width) / 4
	"depth_log",         // log1p(depth in the indentation tree) / 3
	"subtree_log",       // log1p(lines in the block the line heads) / 6
	"decl",              // declaration (def, class, func, directive, ...)
	"comment",           // comment or docstring-like line
	"import",            // import / include / require line
	"fail_word",         // failure vocabulary strength (logs), in [0, 1]
	"shape_rare",        // 1 / (1 + log(count of lines of the same shape))
	"near_last_fail",    // exp(-distance to the last strong failure line / 40)
	"kind_code_python",  // source kind one-hot: code in Python (from path/language),
	"kind_code_other",   // other code,
	"kind_logs",         // logs,
	"kind_docs",         // documentation
	"lang_rst",          // reStructuredText path or language
	"rst_directive",     // reStructuredText directive (".. function::") or Markdown heading
	"in_directive",      // inside the body of a directive: exp(-distance to it / 20)
	"heuristic_logit",   // log(h / (1 - h)) of the heuristic score h clipped to [1e-4, 1 - 1e-4]
	"heuristic_exact",   // the same unclipped, ±1e4 for h = 0 or 1: σ of it is h exactly (not for MLP input)
	"structural",        // the structural scorer's final score (tree-sitter units blended with the heuristic; logs: the heuristic's)
	"structural_rank",   // share of lines the structural scorer scores strictly higher (0 = best)
	"struct_max_w3",     // max structural score within ±3 lines
	"struct_block_max",  // max structural score over the indentation block enclosing the line (the line's own when top-level)
	"struct_minus_heur", // structural − heuristic score
	"structural_logit",  // log(s / (1 - s)) of the structural score s clipped to [1e-4, 1 - 1e-4]
	"structural_exact",  // the same unclipped, ±1e4 for s = 0 or 1: σ of it is s exactly (not for MLP input)
}

// KindColumns are the columns of the source-kind one-hot, in the order of Kinds; exactly one
// is 1 on every row. Models may route on them (the shipped model has one expert per kind).
var KindColumns = []int{31, 32, 33, 34}

// Kinds names the source kinds of KindColumns.
var Kinds = []string{"code_python", "code_other", "logs", "docs"}

// structuralScorer is shared by every Compute: it holds the tree-sitter parsers and the
// outline cache (outlines depend on the content only), and is safe for concurrent use.
var structuralScorer = sync.OnceValue(structural.New)

// heuristicScorer is shared likewise, so an agent's goal, sent with many reads, is parsed
// once (the heuristic's goal cache) rather than on every request.
var heuristicScorer = sync.OnceValue(heuristic.New)

// NumFeatures is the width F of a feature row.
var NumFeatures = len(Names)

var (
	reDecl      = regexp.MustCompile(`^\s*(@\w|(export\s+)?(default\s+)?(async\s+)?(def|class|func|fn|function|interface|struct|enum|trait|impl|type)\b|(public|private|protected|internal|static)\s)`)
	reImport    = regexp.MustCompile(`^\s*(import\b|from\s+[\w.]+\s+import\b|#\s*include\b|using\s+[\w.]+\s*;|use\s+\w|require\s*\(|(const|let|var)\s+[\w{}, ]+\s*=\s*require\s*\(|package\s+\w)`)
	reDirective = regexp.MustCompile(`^\s*(\.\.\s+[\w:-]+::|#{1,6}\s)`)
)

// Matrix is the features of one request.
type Matrix struct {
	// X is the n×F feature matrix, row-major, as float32 (the model's input type).
	X []float32
	N int
	// Focus is the heuristic's focus terms, for the engine's marker reasons.
	Focus []string
}

// Kind returns the source kind (one of Kinds) the rows are routed to, or "" for none.
func (m *Matrix) Kind() string {
	if m.N == 0 {
		return ""
	}
	if k := KindOf(m.Row(0)); k >= 0 {
		return Kinds[k]
	}
	return ""
}

// KindOf returns the index in Kinds of a feature row's source kind, or -1 when no kind
// column is set.
func KindOf(row []float32) int {
	for k, c := range KindColumns {
		if row[c] == 1 {
			return k
		}
	}
	return -1
}

// Row returns the features of line i.
func (m *Matrix) Row(i int) []float32 { return m.X[i*NumFeatures : (i+1)*NumFeatures] }

// Compute returns the feature matrix of req. It honours ctx between its passes and every
// ctxEvery rows of the last, and returns ctx's error rather than a matrix finished late.
func Compute(ctx context.Context, req *engine.ScoreRequest) (*Matrix, error) {
	lines := req.Lines
	n := len(lines)
	F := NumFeatures
	out := make([]float32, n*F)
	if n == 0 {
		return &Matrix{X: out}, nil
	}
	hresp, a, err := heuristicScorer().ScoreWithAnalysis(ctx, req)
	if err != nil {
		return nil, err
	}
	q := a.Query
	heur := hresp.Scores
	// The structural scorer defers logs to the heuristic; skip the second pass there.
	strs := heur
	if req.SourceType != engine.SourceLogs {
		sresp, err := structuralScorer().ScoreGiven(ctx, req, hresp, a)
		if err != nil {
			return nil, err
		}
		if len(sresp.Scores) != n {
			return nil, fmt.Errorf("linefeat: structural scorer returned %d scores for %d lines", len(sresp.Scores), n)
		}
		strs = sresp.Scores
	}
	block, parent := heuristic.BlockScores(lines, a)
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	maxLex, maxBlock := 0.0, 0.0
	best := -1
	for i := 0; i < n; i++ {
		if a.Lex[i] > maxLex {
			maxLex, best = a.Lex[i], i
		}
		maxBlock = math.Max(maxBlock, block[i])
	}
	const strongMatch = 8.0
	zl := math.Max(strongMatch, maxLex)
	lexNorm := make([]float64, n)
	for i := range lexNorm {
		lexNorm[i] = a.Lex[i] / zl
	}
	// Goal terms present in the document, and their total weight.
	present, presentW := 0, 0.0
	for t, idf := range a.IDF {
		if idf > 0 {
			present++
			presentW += idf * q.Terms[t].Weight
		}
	}

	// Tree: depth and subtree size from the parent array (parents precede children).
	depth := make([]int, n)
	sub := make([]int, n)
	for i := 0; i < n; i++ {
		if p := parent[i]; p >= 0 && int(p) < i {
			depth[i] = depth[p] + 1
		}
	}
	for i := n - 1; i >= 0; i-- {
		sub[i]++
		if p := parent[i]; p >= 0 && int(p) < i {
			sub[p] += sub[i]
		}
	}

	rank := rankShare(heur)
	heurMax3 := windowMax(heur, 3)
	heurMean10 := windowMean(heur, 10)
	lexMax3 := windowMax(lexNorm, 3)
	lexSum10 := windowSum(lexNorm, 10)
	strRank := rankShare(strs)
	strMax3 := windowMax(strs, 3)
	// Max structural score over each line's subtree (children follow their parent).
	strSub := append([]float64(nil), strs...)
	for i := n - 1; i >= 0; i-- {
		if p := parent[i]; p >= 0 && int(p) < i {
			strSub[p] = math.Max(strSub[p], strSub[i])
		}
	}

	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// Logs: failure words, shape rarity, the last strong failure.
	fail := make([]float64, n)
	shapes := make(map[uint64]int32, n)
	shape := make([]uint64, n)
	lastFail := -1
	for i, l := range lines {
		shape[i] = heuristic.ShapeHash(l)
		shapes[shape[i]]++
		if len(l) > 4096 {
			continue
		}
		fail[i] = failStrength(l)
		if fail[i] == 1 {
			lastFail = i
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	lang := strings.ToLower(req.Language)
	path := strings.ToLower(req.Path)
	isPy := b2f(lang == "python" || strings.HasSuffix(path, ".py"))
	isRST := b2f(lang == "rst" || lang == "restructuredtext" || strings.HasSuffix(path, ".rst") || strings.HasSuffix(path, ".rst.txt"))
	src := [3]float64{b2f(req.SourceType == engine.SourceCode), b2f(req.SourceType == engine.SourceLogs), b2f(req.SourceType == engine.SourceDocs)}

	lastDirective := -1
	logN := math.Log1p(float64(n))
	// Scores repeat from line to line (most lines of a long file score 0 or share a unit's
	// score), so their logits are computed once per run of equal scores.
	var hl, sl logits
	for i, l := range lines {
		// The row pass is the longest (about 0.25 s on a million lines): it looks at ctx
		// as it goes, so a request whose deadline passes here frees its slot.
		if i%ctxEvery == ctxEvery-1 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		row := out[i*F : (i+1)*F]
		termCover, idfCover := 0.0, 0.0
		if present > 0 {
			ts := a.Terms(i)
			termCover = float64(len(ts)) / float64(present)
			for _, t := range ts {
				idfCover += a.IDF[t] * q.Terms[t].Weight
			}
			idfCover /= presentW
		}
		bl, pb, gb := 0.0, 0.0, 0.0
		if maxBlock > 0 {
			bl = block[i] / maxBlock
			if p := parent[i]; p >= 0 {
				pb = block[p] / maxBlock
				if g := parent[p]; g >= 0 {
					gb = block[g] / maxBlock
				}
			}
		}
		lexRel := 0.0
		if maxLex > 0 {
			lexRel = a.Lex[i] / maxLex
		}
		nearBest := 0.0
		if best >= 0 {
			nearBest = expNeg(math.Abs(float64(i-best)) / 5)
		}
		nearLast := 0.0
		if lastFail >= 0 {
			nearLast = expNeg(math.Abs(float64(i-lastFail)) / 40)
		}
		ind, nonBlank := heuristic.Indent(l)
		blank := !nonBlank
		lead := leadOf(l)
		directive := lead.directive && reDirective.MatchString(l)
		if directive {
			lastDirective = i
		} else if !blank && ind == 0 && lastDirective >= 0 && req.SourceType == engine.SourceDocs {
			lastDirective = -1 // a top-level paragraph ends the directive's body
		}
		inDirective := 0.0
		if lastDirective >= 0 {
			inDirective = expNeg(float64(i-lastDirective) / 20)
		}
		hl.of(heur[i])
		sl.of(strs[i])
		vals := [...]float64{
			lexNorm[i], lexRel, math.Log1p(a.Lex[i]), b2f(a.Exact[i]), termCover, idfCover,
			bl, pb, gb,
			heur[i], rank[i], heurMax3[i], heurMean10[i], lexMax3[i], 1 - expNeg(lexSum10[i]), nearBest,
			float64(i+1) / float64(n), math.Log1p(float64(n-1-i)) / logN, logN / 10,
			log1pInt(len(l)) / 6, b2f(blank), log1pInt(a.Length[i]) / 4,
			log1pInt(ind) / 4, log1pInt(depth[i]) / 3, log1pInt(sub[i]) / 6,
			b2f(lead.decl && reDecl.MatchString(l)), b2f(lead.comment && isComment(l)), b2f(lead.imp && reImport.MatchString(l)),
			fail[i], 1 / (1 + logInt(int(shapes[shape[i]]))), nearLast,
			src[0] * isPy, src[0] * (1 - isPy), src[1], src[2], isRST,
			b2f(directive), inDirective, hl.clipped, hl.exact,
			strs[i], strRank[i], strMax3[i], strBlock(strSub, parent, i), strs[i] - heur[i],
			sl.clipped, sl.exact,
		}
		for k, v := range vals {
			row[k] = float32(v)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &Matrix{X: out, N: n, Focus: hresp.Focus}, nil
}

// ctxEvery is how many rows the row pass computes between looks at ctx.
const ctxEvery = 4096

// strBlock is the max structural score over the block enclosing line i (its parent's
// subtree), or over the line's own subtree when it is top-level.
func strBlock(sub []float64, parent []int32, i int) float64 {
	if p := parent[i]; p >= 0 && int(p) < i {
		return sub[p]
	}
	return sub[i]
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// rankShare returns, for each value, the share of values strictly greater: the values are
// sorted once, and each one's count of greater values is found by binary search.
func rankShare(v []float64) []float64 {
	n := len(v)
	sorted := slices.Clone(v)
	slices.Sort(sorted)
	out := make([]float64, n)
	for i, x := range v {
		// A branch-free search: base ends on the last index holding a value <= x (there is
		// one, x itself); the values after it are the greater ones.
		base, size := 0, n
		for size > 1 {
			half := size / 2
			if sorted[base+half] <= x {
				base += half
			}
			size -= half
		}
		out[i] = float64(n-1-base) / float64(n)
	}
	return out
}

func windowMax(v []float64, w int) []float64 {
	n := len(v)
	out := make([]float64, n)
	for i := 0; i < n; i++ {
		m := v[i]
		for j := max(0, i-w); j <= min(n-1, i+w); j++ {
			m = max(m, v[j])
		}
		out[i] = m
	}
	return out
}

func windowSum(v []float64, w int) []float64 {
	n := len(v)
	prefix := make([]float64, n+1)
	for i, x := range v {
		prefix[i+1] = prefix[i] + x
	}
	out := make([]float64, n)
	for i := 0; i < n; i++ {
		out[i] = prefix[min(n, i+w+1)] - prefix[max(0, i-w)]
	}
	return out
}

func windowMean(v []float64, w int) []float64 {
	s := windowSum(v, w)
	n := len(v)
	for i := range s {
		s[i] /= float64(min(n, i+w+1) - max(0, i-w))
	}
	return s
}

// failStrength is 1 for a line with failure vocabulary (error, exception, traceback, fatal,
// panic, failed, failure, fail), 0.5 for softer signs (cannot, unable, undefined, denied,
// "exit code/status"), else 0. Words are ASCII letter runs compared case-insensitively; a
// word counts when it starts at a word boundary (so "errors" counts, "TypeError" does not).
func failStrength(l string) float64 {
	best := 0.0
	prevExit := false
	var buf [16]byte // a word's first bytes, lower-cased: every word compared is shorter
	for i := 0; i < len(l); {
		c := l[i]
		if !isLetter(c) {
			i++
			continue
		}
		j := i
		for j < len(l) && isLetter(l[j]) {
			j++
		}
		if !mayMatter[c|0x20] {
			// No word compared below starts with this letter, "exit" included.
			prevExit = false
			i = j
			continue
		}
		boundary := i == 0 || !isWordByte(l[i-1])
		n := copy(buf[:], l[i:j])
		for k := range n {
			buf[k] |= 0x20 // ASCII letters only, so this lower-cases
		}
		w := buf[:n]
		whole := j-i <= len(buf) // w is the whole word, not its start
		i = j
		is := func(word string) bool { return whole && string(w) == word }
		has := func(prefix string) bool { return len(w) >= len(prefix) && string(w[:len(prefix)]) == prefix }
		exit := is("exit") || is("exited")
		if !boundary {
			prevExit = exit
			continue
		}
		switch {
		case has("error"), has("exception"), has("fatal"), has("panic"), has("traceback"),
			is("failed"), is("failure"), is("fail"):
			return 1
		case is("cannot"), is("unable"), is("undefined"), is("denied"),
			prevExit && (is("code") || is("status") || is("with")):
			best = 0.5
		}
		prevExit = exit
	}
	return best
}

// mayMatter marks the lower-case first letters of the words failStrength compares: error,
// exception, exit, fatal, fail…, panic, traceback, cannot, code, unable, undefined, denied,
// status, with.
var mayMatter = func() (t [256]bool) {
	for _, c := range "cdefpstuw" {
		t[c] = true
	}
	return t
}()

func isLetter(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

func isWordByte(c byte) bool { return isLetter(c) || (c >= '0' && c <= '9') || c == '_' || c >= 0x80 }

// leading says which line-start regular expressions can match, from the first word, so the
// common line runs none of them.
type leading struct{ decl, comment, imp, directive bool }

var (
	declWords   = wordSet("def class func fn function interface struct enum trait impl type export default async public private protected internal static")
	importWords = wordSet("import from using use require const let var package")
)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// isComment reports whether l opens with a comment or docstring mark after white space
// (RE2's \s: tab, newline, form feed, carriage return, space): #, //, /*, *, --, or three
// double or single quotes (a docstring).
func isComment(l string) bool {
	i := 0
	for i < len(l) && (l[i] == ' ' || l[i] == '\t' || l[i] == '\n' || l[i] == '\f' || l[i] == '\r') {
		i++
	}
	t := l[i:]
	for _, p := range [...]string{"#", "//", "/*", "*", "--", `"""`, "'''"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

func leadOf(l string) leading {
	i := 0
	for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	if i == len(l) {
		return leading{}
	}
	switch c := l[i]; c {
	case '@':
		return leading{decl: true}
	case '#':
		return leading{comment: true, imp: true, directive: true}
	case '/', '*', '-', '"', '\'':
		return leading{comment: true}
	case '.':
		return leading{directive: true}
	}
	j := i
	for j < len(l) && isLetter(l[j]) {
		j++
	}
	w := l[i:j]
	return leading{decl: declWords[w], imp: importWords[w]}
}

// logits caches the two logit features of the last score seen.
type logits struct {
	last           float64
	seen           bool
	clipped, exact float64
}

// of sets clipped and exact to the logits of p, computing them only when p differs from the
// previous score.
func (l *logits) of(p float64) {
	if l.seen && p == l.last {
		return
	}
	l.last, l.seen = p, true
	l.clipped, l.exact = logit(min(1-1e-4, max(1e-4, p))), logit(p)
}

// expNeg is math.Exp(-x) for x >= 0, skipping the exponential where the feature's float32
// is known: 1 at x = 0, and 0 beyond x = 110 (e^-110 is far below float32's smallest
// subnormal, so it rounds to 0). Callers store the result as float32 or subtract it from 1.
func expNeg(x float64) float64 {
	switch {
	case x == 0:
		return 1
	case x > 110:
		return 0
	}
	return math.Exp(-x)
}

// intTable is how many small integers log1pInt and logInt answer from a table.
const intTable = 1024

var log1pTable, logTable = func() (l1p, l [intTable]float64) {
	for k := range intTable {
		l1p[k] = math.Log1p(float64(k))
		l[k] = math.Log(float64(k))
	}
	return
}()

// log1pInt is math.Log1p(float64(k)) for k >= 0, from a table for small k.
func log1pInt(k int) float64 {
	if uint(k) < intTable {
		return log1pTable[k]
	}
	return math.Log1p(float64(k))
}

// logInt is math.Log(float64(k)) for k >= 1, from a table for small k.
func logInt(k int) float64 {
	if uint(k) < intTable {
		return logTable[k]
	}
	return math.Log(float64(k))
}

// logit inverts the sigmoid. Scores of exactly 0 or 1 map to ∓1e4, whose sigmoid is exactly
// 0 or 1 in float32 and float64, so a model passing the logit through returns the heuristic's
// scores unchanged, ties and zeros included (the engine orders zero-scored lines by position).
func logit(p float64) float64 {
	switch {
	case p <= 0:
		return -1e4
	case p >= 1:
		return 1e4
	}
	return math.Log(p / (1 - p))
}
