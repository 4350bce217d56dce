// Package structural is the syntax-aware scorer: it parses code with tree-sitter (Go, Python,
// JavaScript, TypeScript/TSX, Java, Rust, C, C++, C#, Ruby, PHP, Bash, YAML, TOML, JSON, Markdown)
// and reads reStructuredText structure from its adornments, then scores whole units
// (definitions with their signature, decorators and doc comment; statement runs; sections)
// with the heuristic scorer's term model, and blends those scores with the heuristic's own
// line scores: the structure ranks definitions, the heuristic finds the lines inside them.
// Files past parseLines are parsed in windows around the heuristic's best lines. Logs,
// unknown languages and unparsable input go to the heuristic scorer, the latter two with a
// warning.
//
// It imports engine, scorers/heuristic, go-tree-sitter and the standard library only.
package structural

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
	sitter "github.com/smacker/go-tree-sitter"
)

// Threshold is the default keep threshold. With the heuristic blend it keeps the lines that
// match well or lie in a definition that does; on the code bench sets with the default
// options it cuts slightly more than the heuristic at its threshold and keeps more gold
// (RESULTS.md).
const Threshold = 0.6

// Warning codes, reported in ScoreResponse.Warnings when the scorer defers to the heuristic.
const (
	WarnUnknownLanguage = "structural_fallback:unknown_language"
	WarnSyntaxErrors    = "structural_fallback:syntax_errors"
	WarnBinary          = "structural_fallback:binary"
	WarnLongLines       = "structural_fallback:long_lines"
	WarnParseFailed     = "structural_fallback:parse_failed"
)

// parseShare: a parse may take 1/parseShare of the time a request has left.
const parseShare = 2

// Limits of what is worth parsing.
const (
	// maxErrorShare is the share of lines inside syntax errors beyond which the tree is not
	// trusted.
	maxErrorShare = 0.3
	// longLine is a line length (bytes) past which a file dominated by such lines (minified
	// code, data) is not treated as code.
	longLine = 5000
)

// Scorer is the structural scorer. It is safe for concurrent use; Close frees its parsers.
type Scorer struct {
	langs    *languages
	fallback *heuristic.Scorer
	outlines *outlineCache
	trees    *treeCache
	// reparsed counts incremental reparses (for tests and benchmarks).
	reparsed atomic.Int64
}

var (
	_ engine.Scorer    = (*Scorer)(nil)
	_ engine.Describer = (*Scorer)(nil)
)

// New returns a structural scorer that defers to the heuristic scorer when it cannot use
// structure.
func New() *Scorer {
	return &Scorer{langs: loadLanguages(), fallback: heuristic.New(), outlines: newOutlineCache(outlineCacheEntries), trees: newTreeCache()}
}

// Describe implements engine.Describer.
func (*Scorer) Describe() engine.ScorerInfo {
	return engine.ScorerInfo{
		Name:        "structural",
		Description: "syntax-tree units (tree-sitter: 16 languages, plus reStructuredText) scored whole with the heuristic term model; logs and unknown input go to the heuristic",
		Where:       "in-process",
		Threshold:   Threshold,
	}
}

// Close frees the idle parsers and the kept trees.
func (s *Scorer) Close() error {
	s.langs.close()
	s.trees.close()
	return nil
}

// Languages lists the languages the scorer recognises, for documentation and tests.
func (s *Scorer) Languages() []string {
	out := make([]string, 0, len(s.langs.all)+1)
	for _, l := range s.langs.all {
		out = append(out, l.name)
	}
	return append(out, langRST)
}

// Score implements engine.Scorer.
func (s *Scorer) Score(ctx context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	return s.ScoreGiven(ctx, req, nil, nil)
}

// ScoreGiven is Score for a caller that already has the heuristic's answer and Analysis for
// this very request (the line-features model computes both), so they are not computed
// twice. h and a may be nil, and are not modified.
func (s *Scorer) ScoreGiven(ctx context.Context, req *engine.ScoreRequest, h *engine.ScoreResponse, a *heuristic.Analysis) (*engine.ScoreResponse, error) {
	if len(req.Lines) == 0 {
		return &engine.ScoreResponse{Scores: []float64{}}, nil
	}
	var built *heuristic.Analysis // asked for here: released once the answer is made
	defer func() {
		if built != nil {
			built.Release()
		}
	}()
	heur := func() (*engine.ScoreResponse, *heuristic.Analysis, error) {
		if h != nil && a != nil {
			// A shallow copy: callers below append to Warnings and replace Scores before
			// changing them.
			c := *h
			c.Warnings = append([]string(nil), h.Warnings...)
			return &c, a, nil
		}
		resp, a, err := s.fallback.ScoreWithAnalysis(ctx, req)
		built = a
		return resp, a, err
	}
	// asHeuristic answers with the heuristic's evidence as the heuristic scorer would: its
	// Score (damped comments included) and its threshold, so natural mode keeps what the
	// heuristic would keep.
	asHeuristic := func(resp *engine.ScoreResponse, a *heuristic.Analysis, warn string) *engine.ScoreResponse {
		resp.Scores = slices.Clone(resp.Scores) // h belongs to the caller
		heuristic.Finish(req, resp, a)
		if warn != "" {
			resp.Warnings = append(resp.Warnings, warn)
		}
		t := heuristic.Threshold
		resp.Threshold = &t
		return resp
	}
	deferTo := func(warn string) (*engine.ScoreResponse, error) {
		resp, a, err := heur()
		if err != nil {
			return nil, err
		}
		return asHeuristic(resp, a, warn), nil
	}
	if req.SourceType == engine.SourceLogs || engine.UnifiedDiff(req.Lines) || engine.GitLog(req.Lines) {
		// A diff or a git log is not a source file; the heuristic reads both for what they are.
		return deferTo("")
	}
	if w := screen(req.Lines); w != "" {
		return deferTo(w)
	}
	name := s.langs.detect(req.Language, req.Path, req.Lines)
	if name == "" {
		return deferTo(WarnUnknownLanguage)
	}
	// The heuristic's scores are half of every code score, and they choose what a long
	// file's windowed parse covers.
	h, a, err := heur()
	if err != nil {
		return nil, err
	}
	q := a.Query
	var o *outline
	if name == langRST {
		o = rstOutline(req.Lines)
	} else {
		var warn string
		o, warn, err = s.outline(ctx, s.langs.byName[name], req.Path, req.Lines, h.Scores)
		if err != nil {
			return nil, err
		}
		if warn != "" {
			return asHeuristic(h, a, warn), nil
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Code's comment lines, found once: a doc comment scores below its definition's code
	// and loose comments are damped, unless the goal is about comments, when stale doc
	// names are looked for in them instead.
	var comment, damped []bool
	if req.SourceType != engine.SourceDocs {
		comment = a.CommentLines(req.Lines)
		if !q.AboutComments {
			damped = comment
		}
	}
	var scores []float64
	var named []bool
	var picked []int32
	config := s.langs.byName[name] != nil && s.langs.byName[name].keys
	if config {
		scores, named, picked = scoreKeys(req.Lines, o, a)
	} else {
		scores, named = scoreOutline(req.Lines, o, a, q, damped, name == "markdown")
	}
	if req.SourceType == engine.SourceDocs {
		for i := range scores {
			blend := docsBlend*h.Scores[i] + (1-docsBlend)*scores[i]
			if named != nil && named[i] {
				// The heuristic reads sections by indentation, which Markdown's do not
				// have: a section the goal names keeps the outline's score.
				blend = max(blend, scores[i])
			}
			scores[i] = blend
		}
		a.LiftGoalKinds(req.Lines, scores, false)
	} else {
		var outlined []float64 // the outline's scores, for the named sections past the blend
		if named != nil {
			outlined = slices.Clone(scores)
		}
		if config {
			// A configuration's units are key paths, not spans held together: no
			// cohesion floor.
			for i := range scores {
				scores[i] = configBlend*h.Scores[i] + (1-configBlend)*scores[i]
			}
			holdPicked(scores, o.keys, picked)
		} else {
			blendCode(scores, h.Scores, o)
		}
		// A section the goal names keeps the outline's score: its members rarely hold the
		// goal's words, and half of nothing would put them under the threshold.
		for i, in := range named {
			if in {
				scores[i] = max(scores[i], outlined[i])
			}
		}
		// The heuristic's half is lifted already; lifting the blend puts comments above
		// the structure's unit scores too.
		a.LiftComments(req.Lines, scores)
		a.LiftCites(req.Lines, scores)
		liftStaleDocNames(q, req.Lines, scores, o, comment)
		// Damping the blend, not the heuristic half, keeps the heuristic's say on which
		// comment lines matter (commits.dev at 20%: 0.621 damping both, 0.638 the blend).
		dampComments(req.Lines, scores, o, damped)
		// After the damping: a branch's comments come with it (branches.go).
		liftBranches(req.Lines, scores)
		// Last: a string the goal quotes whole outranks what its words reach (literals.go).
		if !config {
			// A configuration's quoted keys ("line-length") repeat in sibling tables,
			// and which one the goal means is its key path's call, not the token's.
			liftLiteralsOf(goalLiteralsOf(q, req.Goal), req.Lines, scores, comment)
		}
		// And a message the goal quotes from a format string ranks first (messages.go).
		liftMessagesIn(goalTextOf(q, req.Goal), req.Lines, scores, comment)
		// The lines a goal's kind points at (misspelt lines, imports, format calls) rank
		// above all of these (heuristic/goalkinds.go).
		// A small import block comes before unrelated code: fixes add imports (imports.go).
		liftImports(req.Lines, scores, o)
		a.LiftGoalKinds(req.Lines, scores, true)
		// A goal that matches nothing leaves the outline alone to rank; the head leads it
		// (nomatch.go). A build goal's lines are found by shape, not by its words.
		if matchesNothing(h.Scores, a.BuildLines()) {
			leanHead(scores)
		}
	}
	return &engine.ScoreResponse{Scores: scores, Focus: a.Focus(3)}, nil
}

// outline parses lines in language l: whole up to parseLines, else in windows around the
// best lines of h. A window with too many syntax errors contributes no units; the warning
// is returned only when no window could be used.
//
// C and C++ whose syntax errors are too many are read again as their preprocessor
// conditionals' first branches (firstBranches): conditionals that split a brace or a
// signature between branches are most of what the C grammars cannot read.
func (s *Scorer) outline(ctx context.Context, l *lang, path string, lines []string, h []float64) (*outline, string, error) {
	o, warn, err := s.outlineAsIs(ctx, l, path, lines, h)
	if err != nil || warn != WarnSyntaxErrors || (l.name != "c" && l.name != "cpp") {
		return o, warn, err
	}
	fb, changed := firstBranches(lines)
	if !changed {
		return o, warn, err
	}
	// Without the path: the tree cache keeps the file as it is, for its next version.
	if o2, warn2, err := s.outlineAsIs(ctx, l, "", fb, h); err != nil || warn2 == "" {
		return o2, warn2, err
	}
	return o, warn, nil
}

func (s *Scorer) outlineAsIs(ctx context.Context, l *lang, path string, lines []string, h []float64) (*outline, string, error) {
	if len(lines) <= parseLines {
		return s.parse(ctx, l, path, lines)
	}
	out := &outline{}
	warn := WarnSyntaxErrors
	for _, w := range chooseWindows(lines, h, parseLines, l.keys) {
		part := dedent(lines[w.start:w.end])
		if l.name == "json" {
			part = wrapJSON(part)
		}
		o, wwarn, err := s.parse(ctx, l, "", part)
		if err != nil {
			return nil, "", err
		}
		switch wwarn {
		case "":
			warn = ""
			o.shift(w.start, len(out.units), len(out.keys))
			out.units = append(out.units, o.units...)
			out.keys = append(out.keys, o.keys...)
		case WarnParseFailed:
			return nil, wwarn, nil
		}
	}
	if warn != "" {
		return nil, warn, nil
	}
	return out, "", nil
}

// parse builds the outline of lines in language l. A file with a path keeps its tree in the
// tree cache, so its next version reparses incrementally; otherwise the tree is freed before
// parse returns (the bindings' finalizers do not free C memory reliably).
func (s *Scorer) parse(ctx context.Context, l *lang, path string, lines []string) (*outline, string, error) {
	return s.parseOrSplit(ctx, l, path, lines, true)
}

// parseWhole is parse without splitting the file in halves.
func (s *Scorer) parseWhole(ctx context.Context, l *lang, path string, lines []string) (*outline, string, error) {
	return s.parseOrSplit(ctx, l, path, lines, false)
}

func (s *Scorer) parseOrSplit(ctx context.Context, l *lang, path string, lines []string, split bool) (*outline, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	key := s.outlines.keyLines(l.name, lines)
	if o, warn, ok := s.outlines.get(key); ok {
		return o, warn, nil
	}
	if k := 0; split {
		if k = splitPoint(l, lines); k > 0 {
			o, ok, err := s.parseHalves(ctx, l, path, lines, k)
			if err != nil {
				return nil, "", err
			}
			if ok {
				s.outlines.put(key, o, "")
				return o, "", nil
			}
		}
	}
	src := []byte(strings.Join(lines, "\n"))
	if l.name == "json" {
		formFeedsAsTabs(src)
	}
	o, warn, err := s.parseSource(ctx, l, path, lines, src)
	if err == nil && warn != WarnParseFailed { // a halted parse may succeed next time
		s.outlines.put(key, o, warn)
	}
	return o, warn, err
}

// parseSource parses src (lines joined) with a pooled parser, incrementally from the tree
// of path's previous version when the tree cache has one.
func (s *Scorer) parseSource(ctx context.Context, l *lang, path string, lines []string, src []byte) (*outline, string, error) {
	var old *sitter.Tree
	key := treeKey{lang: l.name, path: path}
	if path != "" {
		if t, osrc, ok := s.trees.take(key); ok {
			if e, ok := editBetween(osrc, src); ok {
				t.Edit(e)
				old = t
				s.reparsed.Add(1)
			} else {
				t.Close()
			}
		}
	}
	p := l.getParser()
	// The bindings watch a cancellable context from a goroutine that may set the parser's
	// cancellation flag after the parse has returned (when the caller cancels later), and
	// the next parse on that pooled parser then fails at once. So the deadline bounds the
	// parse through tree-sitter's own timeout, and the bindings get a context that is never
	// cancelled. (Parses are bounded to parseLines, a few milliseconds; a cancellation
	// without a deadline is seen right after.) A parse gets half the time left: a grammar
	// can be superlinear on odd input (tree-sitter-bash took 17 s on 1,250 lines of nested
	// parentheses), and a parse halted so leaves time to answer with the heuristic's scores
	// (WarnParseFailed) instead of a timeout and the text unpruned.
	limit := 0
	if d, ok := ctx.Deadline(); ok {
		limit = max(1, int(time.Until(d).Microseconds()/parseShare))
	}
	p.SetOperationLimit(limit)
	tree, err := p.ParseCtx(context.WithoutCancel(ctx), old, src)
	if old != nil {
		s.trees.free(old)
	}
	if err != nil || tree == nil {
		// A halted parser keeps its state to resume; do not pool it.
		p.Close()
		if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
			return nil, "", context.DeadlineExceeded
		}
		if err := ctx.Err(); err != nil {
			return nil, "", err
		}
		return nil, WarnParseFailed, nil
	}
	if err := ctx.Err(); err != nil {
		tree.Close()
		l.putParser(p)
		return nil, "", err
	}
	defer l.putParser(p)
	if path != "" {
		// Deferred, so the tree is handed over only once the outline has been read from it.
		defer s.trees.put(key, src, tree)
	} else {
		defer s.trees.free(tree)
	}
	root := tree.RootNode()
	if l.keys && root.IsError() {
		// The YAML grammar gives up on a structure it cannot continue ("a: b" then "- c"
		// at the same level) and returns an ERROR root holding what it read before; the
		// rest of the file is in no node, so the share below, which counts ERROR nodes
		// under the root, saw none.
		return nil, WarnSyntaxErrors, nil
	}
	if root.HasError() {
		share, err := errorShare(ctx, root, len(lines))
		if err != nil {
			return nil, "", err
		}
		if share > maxErrorShare {
			return nil, WarnSyntaxErrors, nil
		}
	}
	o, err := extractOutline(ctx, l, root, src, lines)
	if err != nil {
		return nil, "", err
	}
	return o, "", nil
}

// errorShare is the share of the n lines that syntax errors cover: the lines of every ERROR
// node and of every MISSING one, each line counted once. It descends only into nodes that
// hold an error, so a clean file costs one check per top-level node.
//
// It used to count, three levels down, the whole of any node that held an error: a
// 220-line C function with one unknown macro in a loop counted 129 lines of error, and 9%
// of Debian's C files and 38% of its C/C++ headers (macros like `__AA_CONST char *` or
// `f DC_DECLVOID()`, each a one-line ERROR) fell back to the heuristic although their
// definitions parse (scorers/structural/RESULTS.md, twenty-eighth round).
//
// Like the outline's walk, it looks at ctx every checkEvery nodes and returns its error.
func errorShare(ctx context.Context, root *sitter.Node, n int) (float64, error) {
	if n == 0 {
		return 0, nil
	}
	bad, next := 0, 0 // lines counted; every line before next is counted already
	check := walkCheck{ctx: ctx}
	// A cursor, not Child(i): tree-sitter finds a node's i-th child by descending through
	// its hidden children each time, so on deeply nested input (10,000 parentheses) the
	// walk by index took seconds where the parse took one; a cursor's steps are linear.
	cur := sitter.NewTreeCursor(root)
	defer cur.Close()
	depth := 0
	if cur.GoToFirstChild() {
		depth++
	}
	for depth > 0 && !check.stop() {
		c := cur.CurrentNode()
		if c.HasError() {
			if c.IsError() || c.IsMissing() {
				s, e := span(c)
				e = max(e, s+1) // a MISSING node is empty: it marks its line
				if s = max(s, next); e > s {
					bad += e - s
					next = e
				}
			} else if cur.GoToFirstChild() {
				depth++
				continue
			}
		}
		for depth > 0 && !cur.GoToNextSibling() {
			cur.GoToParent()
			depth--
		}
	}
	if check.err != nil {
		return 0, check.err
	}
	return float64(min(bad, n)) / float64(n), nil
}

// screen rejects input that is not text worth parsing: binary content (NUL bytes and invalid
// UTF-8 over 5% of the bytes) and files made of huge lines. It returns a warning code, or "".
// A NUL or two is a test fixture's, not a binary file's: tree-sitter reads it as any other
// byte, and a syntax tree it breaks is caught by the syntax-error share.
func screen(lines []string) string {
	total, long, invalid := 0, 0, 0
	for _, l := range lines {
		total += len(l) + 1
		if len(l) > longLine {
			long += len(l)
		}
		invalid += strings.Count(l, "\x00")
		if !utf8.ValidString(l) {
			for i := 0; i < len(l); {
				r, size := utf8.DecodeRuneInString(l[i:])
				if r == utf8.RuneError && size == 1 {
					invalid++
				}
				i += size
			}
		}
	}
	switch {
	case invalid*20 > total:
		return WarnBinary
	case long*2 > total:
		return WarnLongLines
	}
	return ""
}
