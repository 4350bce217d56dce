package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"
)

// TokenCounter counts tokens exactly; package tokenizer's Encoder satisfies it.
type TokenCounter interface {
	Count(s string) int
}

// LineCounter is an optional TokenCounter ability: the exact count of line+"\n" without
// building that string. The engine prices lines with it when present.
type LineCounter interface {
	CountLine(line string) int
}

// NumberedCounter is an optional TokenCounter ability: the CountLine of a numbered line
// "N│ R" (see LinePrefix) from the CountLine of R, restNL. The engine counts a numbered
// output with it when present, from the prices of the original's lines.
type NumberedCounter interface {
	LineCounter
	CountNumberedLine(numbered string, restNL int) int
}

// NumeralCounter is an optional NumberedCounter ability: NumeralGroupsAreTokens reports
// that changing a number in a text changes its count only by the number's digit groups,
// each one token: tiktoken's encodings split an ASCII digit run into groups of up to three
// from its left (\p{N}{1,3}) and no pre-token joins a digit to anything else, so where no
// other numeral touches the run, the rest of the text splits the same. The engine then
// counts its markers, which differ by their line numbers, from one count per reason.
type NumeralCounter interface {
	NumberedCounter
	NumeralGroupsAreTokens() bool
}

// LinesCounter is an optional TokenCounter ability: Count(text) and the CountLine of each of
// text's lines (split at '\n', without the empty string after a final '\n') in one pass.
// The engine counts an input with it when present.
type LinesCounter interface {
	CountLines(text string) (int, []int)
}

// NumberedMemo is an optional LinesCounter ability: it remembers, with a text it has priced,
// the CountLine of its lines' numbered forms ("N│ R", see LinePrefix; N the line's number)
// that a caller worked out, so that the numbered output of a text pruned again is counted
// without working any of them out twice.
type NumberedMemo interface {
	// NumberedCounts returns, for each line of text, its numbered form's CountLine where it is
	// remembered and -1 elsewhere; nil when text is not remembered. The slice is the caller's.
	NumberedCounts(text string) []int32
	// RememberNumbered remembers counts, one per line of text as NumberedCounts returns them.
	RememberNumbered(text string, counts []int32)
}

// DefaultMaxInputChars is the seed's input limit (MCP_PRUNER_MAX_INPUT_CHARS).
const DefaultMaxInputChars = 2_000_000

// Config wires an Engine. Registry, Store and Tokens are required.
type Config struct {
	Registry *Registry
	Store    Store
	Tokens   TokenCounter
	// MaxInputChars bounds the text in characters (code points); 0 means the default.
	MaxInputChars int
}

// Engine prunes texts. It is safe for concurrent use.
type Engine struct {
	reg      *Registry
	store    Store
	tokens   TokenCounter
	maxChars int
	now      func() time.Time
	// markerRef is the token count every prune id's probe is drawn to have (see newID).
	markerRef int
	// idsAlike: every sampled id's probe costs markerRef, so newID takes the first id drawn.
	idsAlike bool
	// shortProbe: the counter prices a marker as its text around the id plus "=" + id (see
	// probeOf), so newID counts that short string instead of a whole marker.
	shortProbe bool
}

// New returns an engine for cfg.
func New(cfg Config) (*Engine, error) {
	if cfg.Registry == nil || cfg.Store == nil || cfg.Tokens == nil {
		return nil, errors.New("engine: Registry, Store and Tokens are required")
	}
	if cfg.MaxInputChars == 0 {
		cfg.MaxInputChars = DefaultMaxInputChars
	}
	if cfg.MaxInputChars < 0 {
		return nil, fmt.Errorf("engine: MaxInputChars must be positive, got %d", cfg.MaxInputChars)
	}
	e := &Engine{reg: cfg.Registry, store: cfg.Store, tokens: cfg.Tokens, maxChars: cfg.MaxInputChars, now: time.Now}
	e.shortProbe = e.idSplitsOff()
	e.markerRef, e.idsAlike = e.commonMarkerCost()
	return e, nil
}

// probeSample is the fixed sample of ids New measures markers on, so every process (and
// every plugin host) agrees on the figures.
func probeSample() []string {
	rng := rand.New(rand.NewPCG(1, 2))
	ids := make([]string, 256)
	for i := range ids {
		ids[i] = pruneID(rng.Uint64N(1e16), rng.Uint64N(1e16))
	}
	return ids
}

// idSplitsOff reports whether, over the sample, a marker's count is its count with "=" + id
// left out plus the count of "=" + id, by a constant: true for tiktoken, whose
// pre-tokenizer starts a piece at the "=" and ends one at the space after the id. newID
// then counts the short string, with the same ids accepted as by whole markers.
func (e *Engine) idSplitsOff() bool {
	diff := 0
	for i, id := range probeSample() {
		d := e.tokens.Count(idProbe(id)) - e.tokens.Count("="+id)
		if i > 0 && d != diff {
			return false
		}
		diff = d
	}
	return true
}

// probeOf is what newID counts for id.
func (e *Engine) probeOf(id string) string {
	if e.shortProbe {
		return "=" + id
	}
	return idProbe(id)
}

// idProbe is the marker an id is measured in; its id is delimited by "=" and " ", so the
// id's tokens are the same in any marker.
func idProbe(id string) string { return Marker(id, 1, 1, reasonLowScore) }

// commonMarkerCost is the most frequent token count of an id's probe over the fixed
// sample: fixed, so every process (and every plugin host) agrees on it; and whether every
// sampled id has that count.
func (e *Engine) commonMarkerCost() (int, bool) {
	freq := map[int]int{}
	best, bestN := 0, -1
	sample := probeSample()
	for _, id := range sample {
		c := e.tokens.Count(e.probeOf(id))
		freq[c]++
		if freq[c] > bestN || (freq[c] == bestN && c < best) {
			best, bestN = c, freq[c]
		}
	}
	return best, bestN == len(sample)
}

// newID draws a prune id whose probe costs exactly markerRef's tokens, so all its markers
// cost the same as every other id's and no pruning decision depends on which random id a
// request got: the same input always gives the same output, ids aside. With a counter that
// prices every id alike (tiktoken: ids are digits, see NewPruneID), that is any id, and
// none is counted.
func (e *Engine) newID() string {
	for i := 0; ; i++ {
		id := NewPruneID()
		if e.idsAlike || i == 256 || e.tokens.Count(e.probeOf(id)) == e.markerRef {
			return id
		}
	}
}

// Registry returns the engine's scorer registry.
func (e *Engine) Registry() *Registry { return e.reg }

// Store returns the engine's recovery store.
func (e *Engine) Store() Store { return e.store }

// MaxInputChars is the input limit in characters.
func (e *Engine) MaxInputChars() int { return e.maxChars }

// CountTokens is s's token count by the engine's tokenizer, the one its stats use.
func (e *Engine) CountTokens(s string) int { return e.tokens.Count(s) }

// Recover returns original lines of a prune; see the package-level Recover.
func (e *Engine) Recover(ctx context.Context, id string, ranges []Range, withLineNumbers bool) (*Recovery, error) {
	return Recover(ctx, e.store, id, ranges, withLineNumbers)
}

// ScoresElsewhere reports whether req's scorer (its own, else its source type's default)
// scores in another process (Elsewhere). It looks the scorer up as Prune will, building a
// "family:arg" spec on its first use; one that cannot be found or built counts as
// in-process, and Prune answers for it.
func (e *Engine) ScoresElsewhere(ctx context.Context, req *Request) bool {
	name := req.Scorer
	if name == "" {
		name = e.reg.DefaultFor(req.SourceType)
	}
	s, err := e.reg.Get(ctx, name)
	if err != nil {
		return false
	}
	el, ok := s.(Elsewhere)
	return ok && el.ScoresElsewhere()
}

// Prune prunes req.Text. It returns an error only for an invalid request (a *FieldError)
// or an unknown or refused scorer (ErrUnknownScorer, ErrScorerNotAllowed); every runtime
// failure (oversize, timeout, a scorer that errs, panics or cannot be built, unmet
// constraints, an original the store cannot keep) gives a fail-open Result with
// used_fallback and a warning code. req.Settled, if set, is called once the prune's work has
// ended, which may be after Prune returns.
func (e *Engine) Prune(ctx context.Context, req *Request) (res *Result, err error) {
	// Deferred first, so it runs last: after the recover below, even if that panics.
	settled := newSettler(req.Settled)
	defer settled.done()
	start := e.now()
	var id, asked string // asked: the scorer, once it has been asked for scores
	// Last line of defence: a bug anywhere below (selection, rendering, the token counter)
	// must not take the caller down or lose the text. The id may not be stored yet, so
	// store it; token figures are then estimates, since the counter itself may be at fault.
	defer func() {
		if p := recover(); p != nil {
			res, err = e.panicOpen(ctx, id, req.Text, start, asked, p, WarnInternalError), nil
		}
	}()
	id = e.newID()
	if e.tooLarge(req.Text) {
		// Checked before the options (as the reference does): the text is stored so the id
		// still recovers, and comes back unchanged. Its tokens are estimated, not counted: an
		// exact count costs time in proportion to the text (about a second a megabyte for a
		// line that never splits, such as base64), which the guard exists to refuse.
		return e.failOpen(ctx, id, req.Text, start, estimateTokens(req.Text), WarnInputTooLarge), nil
	}
	if err := req.Options.Validate(); err != nil {
		return nil, err
	}
	if !req.SourceType.Valid() {
		return nil, &FieldError{Field: "source_type", Problem: `must be one of "code", "logs", "docs"`}
	}
	if req.Threshold != nil && !(*req.Threshold >= 0 && *req.Threshold <= 1) {
		return nil, &FieldError{Field: "threshold", Problem: "must be a number between 0 and 1"}
	}
	if req.TokenBudget < 0 {
		return nil, &FieldError{Field: "token_budget", Problem: "must be an integer >= 0"}
	}
	if !lineText(req.Text) {
		return e.failOpen(ctx, id, req.Text, start, estimateTokens(req.Text), WarnNotUTF8Text), nil
	}
	name := req.Scorer
	if name == "" {
		name = e.reg.DefaultFor(req.SourceType)
	}
	scorer, err := e.reg.Get(ctx, name)
	if err != nil {
		if errors.Is(err, ErrUnknownScorer) || errors.Is(err, ErrScorerNotAllowed) {
			return nil, err
		}
		// A scorer that exists but cannot be built now (a model that will not load, a plugin
		// that will not start) fails like one that fails when asked.
		return failed(e.failOpen(ctx, id, req.Text, start, -1, WarnScorerError), name, err), nil
	}
	if err := e.store.Put(ctx, id, req.Text); err != nil {
		// Every cut must be recoverable: lines the store cannot give back are not cut.
		return failed(e.fallback(id, req.Text, start, -1, WarnRecoveryUnavailable), "", fmt.Errorf("store: %w", err)), nil
	}

	ctx, cancel := context.WithTimeout(ctx, req.Options.Timeout())
	defer cancel()

	// Count the original's tokens and price its lines while the scorer works: on two cores
	// this hides most of it.
	ls := splitLines(req.Text)
	type counted struct {
		total    int // -1: the counter panicked
		costs    []int
		numbered *numberedCounts // a numbered output's line counts, as far as remembered
	}
	count := func() counted {
		if lc, ok := e.tokens.(LinesCounter); ok {
			if total, costs := lc.CountLines(req.Text); len(costs) == len(ls.raw) {
				return counted{total: total, costs: costs, numbered: e.numberedCounts(req, len(costs))}
			}
		}
		return counted{total: e.tokens.Count(req.Text), costs: e.lineCosts(ls.raw)}
	}
	before := goHeld(settled, count) // held: a panic in Prune may leave the count running

	lines := ls.content()
	// The protection rules need only the lines: on a long text they run while the scorer
	// works (a millisecond at 10,000 lines). On a short one the overlap would gain
	// microseconds and put one more runnable goroutine on a busy server's cores.
	var pr protection
	var meanwhile func()
	overlap := len(lines) >= overlapLines
	if overlap {
		meanwhile = func() { pr = protect(lines, req.SourceType) }
	}
	asked = name
	resp, scoreErr := callScorer(ctx, settled, scorer, &ScoreRequest{
		Lines: lines, Goal: req.GoalHint, SourceType: req.SourceType, Path: req.Path, Language: req.Language,
	}, meanwhile)
	// The count usually ends long before the scorer. When it has not by the deadline (a text
	// that is one huge piece for the tokenizer: a megabyte of punctuation or invalid bytes
	// takes seconds), the answer does not wait for it: the text comes back unchanged with an
	// estimate, as the seed's tokens_est_* allow. The count finishes in the background,
	// holding the request's slot (settled) until then.
	var h held[counted]
	select {
	case h = <-before:
	default:
		select {
		case h = <-before:
		case <-ctx.Done():
			return failed(e.fallback(id, req.Text, start, estimateTokens(req.Text), WarnTimeout), name,
				fmt.Errorf("counting the text's tokens: %w", ctx.Err())), nil
		}
	}
	if h.panicked != nil {
		panic("engine: token counter failed") // the deferred recover turns it into a fallback
	}
	c := h.v
	tokensBefore := c.total
	if scoreErr != nil {
		warn := WarnScorerError
		if errors.Is(scoreErr, context.DeadlineExceeded) {
			warn = WarnTimeout
		}
		return failed(e.fallback(id, req.Text, start, tokensBefore, warn), name, scoreErr), nil
	}

	if !overlap {
		pr = protect(lines, req.SourceType)
	}

	// A budget says how much to keep; the scorer's threshold would only starve it, so with a
	// budget and no explicit threshold every line is a candidate, best first.
	threshold := resp.ThresholdOr(ThresholdOf(scorer))
	if req.TokenBudget > 0 {
		threshold = 0
	}
	if req.Threshold != nil {
		threshold = *req.Threshold
	}
	res = selectWithin(ctx, settled, ls, func() *Result {
		return e.selectAndRender(ctx, ls, lines, pr, req, resp, threshold, id, tokensBefore, c.costs, c.numbered)
	})
	if err := ctx.Err(); err != nil {
		return failed(e.fallback(id, req.Text, start, tokensBefore, WarnTimeout), name, fmt.Errorf("after scoring: %w", err)), nil
	}
	if err := checkInvariants(ls, res, req.Options); err != nil {
		return failed(e.fallback(id, req.Text, start, tokensBefore, WarnConstraintsUnmet), name, fmt.Errorf("invariant: %w", err)), nil
	}
	if res.Stats.PrunedLines > 0 {
		if err := e.stillStored(ctx, id, req.Text); err != nil {
			return failed(e.fallback(id, req.Text, start, tokensBefore, WarnRecoveryUnavailable), name, fmt.Errorf("store: %w", err)), nil
		}
	}
	res.Scores = resp.Scores
	res.ScorerName = name
	var quiet []string
	if req.Scorer == "" && len(resp.Warnings) > 0 { // most prunes have none: no lock then
		quiet = e.reg.quietCodes(name)
	}
	for _, w := range resp.Warnings {
		// A scorer's (a plugin's) warning is a code: on one line, visible as written.
		if w = sanitizeWarning(w); w != "" && !slices.Contains(quiet, w) {
			res.Warnings = appendUnique(res.Warnings, w)
		}
	}
	if res.Stats.PrunedLines > 0 && !HasWord(req.GoalHint) {
		res.Warnings = append(res.Warnings, WarnGoalWithoutWords)
	}
	res.Stats.ElapsedMS = e.now().Sub(start).Milliseconds()
	return res, nil
}

// HasWord reports whether goal holds a letter or a digit: something a scorer can look for.
func HasWord(goal string) bool {
	return strings.IndexFunc(goal, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// stillStored makes sure the original of a prune that cut lines is still in the store as it
// answers: other prunes may have evicted it while this one was scored (a slow scorer, a small
// store), and cut lines that cannot be given back must not be answered. Get also marks it
// recently used, so it is the last to be evicted; one already gone is stored again.
func (e *Engine) stillStored(ctx context.Context, id, text string) error {
	if _, err := e.store.Get(ctx, id); err == nil {
		return nil
	}
	return e.store.Put(ctx, id, text)
}

// longLineBytes is the line length past which the selection may overrun the deadline: counting
// the output checks the deadline between lines, and the tokenizer takes about a second a
// megabyte on a line that never splits (one letter repeated, base64 without breaks).
const longLineBytes = 64 << 10

// selectWithin runs the selection (sel) and returns its result, or nil once ctx is done. A text
// whose lines are all shorter than longLineBytes is selected in this goroutine, which notices
// the deadline between lines. Otherwise the selection runs in one of its own, holding the
// request's slot (settled) until it ends, so that the answer (a timeout) does not wait for the
// count of one huge line.
func selectWithin(ctx context.Context, settled *settler, ls lineSet, sel func() *Result) *Result {
	long := false
	for _, l := range ls.raw {
		if len(l) > longLineBytes {
			long = true
			break
		}
	}
	if !long {
		return sel()
	}
	select {
	case h := <-goHeld(settled, sel):
		if h.panicked != nil {
			panic(h.panicked) // Prune's recover answers it, as when the selection ran here
		}
		return h.v
	case <-ctx.Done():
		return nil
	}
}

// Fallback stores text and returns the seed's fail-open result for it with warning, as Prune
// would: for callers that must give up before a prune starts (e.g. a request that timed out
// waiting in a server's queue). Its token figures are estimates (a quarter of the bytes): an
// exact count could take longer than the caller has. A text the store refuses adds
// WarnRecoveryUnavailable; the error is always nil, and a panic (in the store) comes back as
// the text, stored if it can be, with WarnInternalError after warning.
func (e *Engine) Fallback(ctx context.Context, text, warning string) (res *Result, err error) {
	start := e.now()
	var id string
	defer func() {
		if p := recover(); p != nil {
			res, err = e.panicOpen(ctx, id, text, start, "", p, warning), nil
		}
	}()
	id = e.newID()
	// The caller has given up already (a request that waited out its timeout_ms in a queue):
	// the answer does not wait for an exact count, which one huge line makes slow.
	return e.failOpen(ctx, id, text, start, estimateTokens(text), warning), nil
}

// panicOpen is the fail-open answer after panic p: text stored under id (a new one if id is
// empty: the panic came before one was drawn) and returned unchanged with warning and
// WarnInternalError. The token figures are estimates, since the counter itself may be at
// fault; asked is the scorer asked for scores, if any.
func (e *Engine) panicOpen(ctx context.Context, id, text string, start time.Time, asked string, p any, warning string) *Result {
	if id == "" {
		id = NewPruneID()
	}
	// ctx may be the prune's own deadline, cancelled by now: the text is stored anyway.
	res := e.failOpen(context.WithoutCancel(ctx), id, text, start, estimateTokens(text), warning)
	res.Warnings = appendUnique(res.Warnings, WarnInternalError)
	return failed(res, asked, fmt.Errorf("panic: %v", p))
}

// estimateTokens stands in for a count that failed or had not ended by the deadline: about
// four bytes a token.
func estimateTokens(text string) int { return (len(text) + 3) / 4 }

// failOpen stores text under id and returns the seed's fail-open result for it with warning.
// A text the store refuses adds WarnRecoveryUnavailable, and the store's error is the reason.
func (e *Engine) failOpen(ctx context.Context, id, text string, start time.Time, tokens int, warning string) *Result {
	if err := e.store.Put(ctx, id, text); err != nil {
		return failed(e.fallback(id, text, start, tokens, warning, WarnRecoveryUnavailable), "", fmt.Errorf("store: %w", err))
	}
	return e.fallback(id, text, start, tokens, warning)
}

// lineText reports whether text can be cut by lines as the engine cuts them: not UTF-16 or
// UTF-32 (a byte-order mark, or NUL bytes in a quarter of the first 4 KiB, which binary data
// also has), and, if it has carriage returns, not without line feeds (CR-only line ends make
// it one line, all kept or all cut).
func lineText(text string) bool {
	if strings.HasPrefix(text, "\xff\xfe") || strings.HasPrefix(text, "\xfe\xff") || strings.HasPrefix(text, "\x00\x00\xfe\xff") {
		return false
	}
	head := text[:min(len(text), 4096)]
	if strings.Count(head, "\x00")*4 >= len(head) && len(head) >= 16 {
		return false
	}
	if strings.IndexByte(text, '\n') < 0 && strings.Count(text, "\r") >= 2 {
		return false
	}
	return true
}

func (e *Engine) tooLarge(text string) bool {
	if len(text) <= e.maxChars {
		return false
	}
	return utf8.RuneCountInString(text) > e.maxChars
}

// overlapLines is the shortest text whose protection rules run while the scorer works.
const overlapLines = 2000

// callScorer runs the scorer so that a panic, a hang past the deadline or garbage scores all
// come back as errors. meanwhile (if not nil) runs on the caller's goroutine while the
// scorer works; a panic in it is the caller's. The scorer's goroutine holds settled until
// Score returns: it outlives this call when the scorer overruns its deadline (or meanwhile
// panics), and whoever bounds concurrent prunes must go on counting it until then.
func callScorer(ctx context.Context, settled *settler, s Scorer, req *ScoreRequest, meanwhile func()) (*ScoreResponse, error) {
	type outcome struct {
		resp *ScoreResponse
		err  error
	}
	done := goHeld(settled, func() outcome {
		resp, err := s.Score(ctx, req)
		return outcome{resp, err}
	})
	if meanwhile != nil {
		meanwhile()
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case h := <-done:
		o := h.v
		if h.panicked != nil {
			o = outcome{err: fmt.Errorf("scorer panicked: %v", h.panicked)}
		}
		if o.err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, o.err
		}
		if err := validScores(o.resp, len(req.Lines)); err != nil {
			return nil, err
		}
		return o.resp, nil
	}
}

// ErrBadScores is wrapped by errors about a scorer's malformed answer.
var ErrBadScores = errors.New("bad scores")

func validScores(r *ScoreResponse, n int) error {
	if r == nil {
		return fmt.Errorf("%w: nil response", ErrBadScores)
	}
	if len(r.Scores) != n {
		return fmt.Errorf("%w: %d scores for %d lines", ErrBadScores, len(r.Scores), n)
	}
	for i, s := range r.Scores {
		if math.IsNaN(s) || s < 0 || s > 1 {
			return fmt.Errorf("%w: line %d scored %v", ErrBadScores, i+1, s)
		}
	}
	if t := r.Threshold; t != nil && !(*t >= 0 && *t <= 1) {
		return fmt.Errorf("%w: threshold %v outside [0, 1]", ErrBadScores, *t)
	}
	return nil
}

// selectAndRender applies the rules and constraints and renders the result. lineCost holds
// each line's price (lineCosts), to which it adds the line-number prefixes' under a token
// budget, which caps the output as rendered. Without a budget the prefixes are not priced:
// seed §5.1 says annotate_lines leaves the annotations unchanged, so it must not change
// which lines are cut (priced, they made short runs dearer than their marker). Once ctx is done
// it stops and returns nil, for the caller to fail open: on a long text, rendering and
// counting take milliseconds, and the exact-budget trim may repeat them 64 times.
func (e *Engine) selectAndRender(ctx context.Context, ls lineSet, lines []string, pr protection, req *Request, resp *ScoreResponse, threshold float64, id string, tokensBefore int, lineCost []int, numbered *numberedCounts) *Result {
	n := len(lines)
	o := req.Options
	prot, joinPrev := pr.prot, pr.joinPrev
	restNL := lineCost // the lines' own prices, for counting a numbered output
	if o.AnnotateLines && req.TokenBudget > 0 {
		restNL = slices.Clone(lineCost)
		for i, l := range ls.raw {
			lineCost[i] += prefixCost(i+1, l)
		}
	}
	focus := make([]string, 0, 3)
	for _, f := range resp.Focus {
		if t := sanitizeTerm(f); t != "" && len(focus) < 3 {
			focus = append(focus, t)
		}
	}
	sel := newSelection(resp.Scores, prot, joinPrev, lineCost)
	sel.threshold = threshold
	sel.minKept = minKeptFor(n, o)
	sel.budget = req.TokenBudget
	var sampleReason string
	if len(focus) > 0 {
		sampleReason = reasonOffFocus + ": " + focus[0]
	} else {
		sampleReason = reasonLowScore
	}
	if o.IncludeMarkers {
		sel.markerCost = e.tokens.Count(Marker(id, n, n, sampleReason)) + 1
	}
	sel.run()
	if ctx.Err() != nil {
		return nil
	}

	reasons := func(start, end int) string {
		return runReason(lines, start, end, focus, resp.Scores, threshold)
	}
	out := render(ls, sel.keep, id, o, reasons)
	after := e.countOutput(ctx, out, ls.trailingNewline, restNL, numbered)
	// Estimates can be off by a few tokens (merges across lines): trim to the exact budget.
	for tries := 0; req.TokenBudget > 0 && after > req.TokenBudget && tries < 64; tries++ {
		if ctx.Err() != nil || !sel.dropLowest() {
			break
		}
		out = render(ls, sel.keep, id, o, reasons)
		after = e.countOutput(ctx, out, ls.trailingNewline, restNL, numbered)
	}
	// Cutting can cost more than it saves: tiktoken merges a run of blank lines into a token
	// or two, but each line is priced alone, so a ~40-token marker may replace a run that
	// cost 3 (300 blank lines between two statements: 19 tokens became 46). An answer that
	// is no cheaper than the text itself keeps everything. Line numbers (annotate_lines)
	// are left out of the comparison: they must not change which lines are cut (seed §5.1),
	// and they only add tokens, so the numbered answer is compared only when it is no
	// cheaper either.
	uncut := false
	if len(out.annotations) > 0 && after >= tokensBefore && ctx.Err() == nil {
		plain := after
		if o.AnnotateLines {
			po := o
			po.AnnotateLines = false
			plain = e.tokens.Count(render(ls, sel.keep, id, po, reasons).text)
		}
		if plain >= tokensBefore {
			all := make([]bool, n)
			for i := range all {
				all[i] = true
			}
			whole := render(ls, all, id, o, reasons)
			// Unless its line numbers break a token budget the cut answer met.
			if c := e.countOutput(ctx, whole, ls.trailingNewline, restNL, numbered); req.TokenBudget == 0 || c <= req.TokenBudget || after > req.TokenBudget {
				out, after, uncut = whole, c, true
			}
		}
	}
	if ctx.Err() != nil {
		return nil // after may be a count cut short
	}
	numbered.remember(req.Text)
	warnings := []string{}
	if !uncut && sel.ruleCut() { // after the trim, which may have cut more
		warnings = append(warnings, WarnProtectedCut)
	}
	if req.TokenBudget > 0 && after > req.TokenBudget {
		warnings = append(warnings, WarnTokenBudgetExceeded)
	}
	kept := len(out.kept)
	return &Result{
		PruneID:     id,
		PrunedText:  out.text,
		Annotations: out.annotations,
		Kept:        out.kept,
		Warnings:    warnings,
		Stats: Stats{
			OriginalLines:   n,
			KeptLines:       kept,
			PrunedLines:     n - kept,
			PrunedRatio:     ratio6(n-kept, n),
			TokensEstBefore: tokensBefore,
			TokensEstAfter:  after,
		},
	}
}

// countOutput returns Count(out.text). A numbered output is counted line by line when the
// counter can (NumberedCounter) and restNL holds the CountLine of every original line:
// each line of it starts with a digit or the marker's "⟦", where no pre-token of the line
// above can reach (see package tokenizer's segments), so the text's count is the sum of its
// lines' (with their line breaks; the last one's only if the text ends with one), and a
// numbered line costs a scan of its first pieces instead of a cache lookup and an insert,
// or nothing when numbered (not nil: the counter is a NumberedMemo) already holds its count.
// Such a count gives up once ctx is done, returning a meaningless figure; a whole text's
// count (the counter's Count) runs to its end.
func (e *Engine) countOutput(ctx context.Context, out rendered, trailingNewline bool, restNL []int, numbered *numberedCounts) int {
	nc, ok := e.tokens.(NumberedCounter)
	if !ok || len(out.lines) == 0 {
		return e.tokens.Count(out.text)
	}
	numerals := false
	if n, ok := nc.(NumeralCounter); ok {
		numerals = n.NumeralGroupsAreTokens()
	}
	last := len(out.lines) - 1
	sum := func(from, to int) int {
		total := 0
		var markers markerCounts
		for k := from; k < to; k++ {
			if k%countCheckEvery == 0 && ctx.Err() != nil {
				return total // the caller sees ctx.Err and drops the count
			}
			l := out.lines[k]
			t := out.text[l.start:l.end]
			switch {
			case k == last && !trailingNewline:
				total += e.tokens.Count(t)
			case l.src >= 0:
				total += numbered.count(nc, t, l.src, restNL[l.src])
			case numerals:
				total += markers.count(nc, t, out.annotations[-l.src-1])
			default:
				total += nc.CountLine(t)
			}
		}
		return total
	}
	// Not through the counter's cache of whole texts: a new answer's markers carry a new
	// prune id, so it never comes back, and would evict inputs that do.
	return sumHalves(len(out.lines), sum)
}

// numberedCounts holds the CountLine of an original's lines' numbered forms, -1 where not
// known yet (from a NumberedMemo), and fills it in as an output is counted. The two halves
// of a count write different lines' entries. A nil *numberedCounts remembers nothing.
type numberedCounts struct {
	memo    NumberedMemo
	counts  []int32
	learned atomic.Bool // an entry was filled in
}

// numberedCounts returns what the counter remembers of the numbered forms of req's n lines,
// when the answer is numbered and the counter is a NumberedMemo that knows the text; else
// nil. It runs beside the scorer, with the count of the text.
func (e *Engine) numberedCounts(req *Request, n int) *numberedCounts {
	memo, ok := e.tokens.(NumberedMemo)
	if !ok || !req.Options.AnnotateLines {
		return nil
	}
	if known := memo.NumberedCounts(req.Text); len(known) == n {
		return &numberedCounts{memo: memo, counts: known}
	}
	return nil
}

// count returns the CountLine of numbered, the numbered form of original line src whose own
// CountLine is restNL.
func (m *numberedCounts) count(nc NumberedCounter, numbered string, src, restNL int) int {
	if m == nil {
		return nc.CountNumberedLine(numbered, restNL)
	}
	if c := m.counts[src]; c >= 0 {
		return int(c)
	}
	c := nc.CountNumberedLine(numbered, restNL)
	if c <= math.MaxInt32 {
		m.counts[src] = int32(c)
		if !m.learned.Load() { // a store on every line would bounce the flag between the halves' cores
			m.learned.Store(true)
		}
	}
	return c
}

// remember hands the counts this prune worked out to the memo, with text.
func (m *numberedCounts) remember(text string) {
	if m != nil && m.learned.Load() {
		m.memo.RememberNumbered(text, m.counts)
	}
}

// markerCounts prices one answer's marker lines (with their line breaks) under a
// NumeralCounter: Marker(id, start, end, reason) is its reason's first marker's count with
// that marker's three numbers' digit groups swapped for its own. One answer has a few
// reasons (the budget's, low scores', a focus term's), so a short list holds them.
type markerCounts []markerBase

type markerBase struct {
	reason string
	cr     bool // the marker line ends in "\r" (a CRLF text's)
	base   int  // the count less the numbers' groups
}

func (m *markerCounts) count(nc LineCounter, marker string, a Annotation) int {
	groups := digitGroups(a.OriginalStartLine) + digitGroups(a.OriginalEndLine) + digitGroups(a.PrunedLineCount)
	cr := strings.HasSuffix(marker, "\r")
	for _, r := range *m {
		if r.reason == a.Reason && r.cr == cr {
			return r.base + groups
		}
	}
	n := nc.CountLine(marker)
	*m = append(*m, markerBase{a.Reason, cr, n - groups})
	return n
}

// digitGroups is the number of groups of up to three digits that v >= 0 is written in.
func digitGroups(v int) int {
	d := 1
	for ; v >= 10; v /= 10 {
		d++
	}
	return (d + 2) / 3
}

// countCheckEvery is how many lines of an output countOutput counts between looks at its
// context: a fraction of a millisecond's work (a 2 MB text's ~30,000 kept lines take ~10 ms),
// against a few nanoseconds a look.
const countCheckEvery = 1024

// sumHalves returns sum(0, n), as sum(0, n/2) + sum(n/2, n) at once from overlapLines on
// when there is a second core. A panic in the second half's goroutine is re-raised here.
func sumHalves(n int, sum func(from, to int) int) int {
	if n < overlapLines || runtime.GOMAXPROCS(0) < 2 {
		return sum(0, n)
	}
	// A long answer's two halves at once: its count is on the answer's path.
	type half struct {
		n     int
		panic any
	}
	done := make(chan half, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- half{panic: v}
			}
		}()
		done <- half{n: sum(n/2, n)}
	}()
	total := sum(0, n/2)
	h := <-done
	if h.panic != nil {
		panic(h.panic) // the caller's, where Prune's recover turns it into a fallback
	}
	return total + h.n
}

// lineCosts prices each raw line with its line break: the counter's exact CountLine when it
// has one, else the line's tokens plus one for the newline.
func (e *Engine) lineCosts(raw []string) []int {
	costs := make([]int, len(raw))
	lc, exact := e.tokens.(LineCounter)
	for i, l := range raw {
		if exact {
			costs[i] = lc.CountLine(l)
		} else {
			costs[i] = e.tokens.Count(l) + 1
		}
	}
	return costs
}

// prefixCost estimates the tokens a line-number prefix "N│ " adds to line l: digits go in
// groups of three, "│" is one token, and the space is free when it joins the line's first
// word but costs one before indentation or an empty line (measured on cl100k_base). It only
// prices selection; reported counts are exact.
func prefixCost(n int, l string) int {
	c := (decimalDigits(n)+2)/3 + 1
	if l == "" || l[0] == ' ' || l[0] == '\t' || l[0] == '\r' {
		c++
	}
	return c
}

func ratio6(a, b int) float64 {
	if b == 0 {
		return 0
	}
	// Rounded as the reference's Python round(x, 6) rounds: the float's exact value to six
	// decimals, a tie to even (33/128 = 0.2578125 is 0.257812, where math.Round gave 0.257813).
	r, _ := strconv.ParseFloat(strconv.FormatFloat(float64(a)/float64(b), 'f', 6, 64), 64)
	return r
}

// fallback is the seed's no-op result. tokens < 0 means "not counted yet".
func (e *Engine) fallback(id, text string, start time.Time, tokens int, warnings ...string) *Result {
	if tokens < 0 {
		tokens = e.tokens.Count(text)
	}
	n := len(splitLines(text).raw)
	kept := make([]int, n)
	for i := range kept {
		kept[i] = i + 1
	}
	return &Result{
		PruneID:     id,
		PrunedText:  text,
		Annotations: []Annotation{},
		Warnings:    warnings,
		Kept:        kept,
		Stats: Stats{
			OriginalLines: n, KeptLines: n, PrunedLines: 0, PrunedRatio: 0,
			TokensEstBefore: tokens, TokensEstAfter: tokens,
			ElapsedMS: e.now().Sub(start).Milliseconds(), UsedFallback: true,
		},
	}
}

// failed records on a fail-open result the scorer asked (if any) and why it failed open, for
// the operator's log.
func failed(res *Result, scorer string, err error) *Result {
	res.ScorerName, res.FallbackError = scorer, err.Error()
	return res
}

// checkInvariants re-verifies the contract on a result before it leaves the engine, so a
// selection bug fails open instead of over-pruning.
func checkInvariants(ls lineSet, r *Result, o Options) error {
	n := len(ls.raw)
	if r.Stats.KeptLines < minKeptFor(n, o) {
		return fmt.Errorf("kept %d lines, need %d", r.Stats.KeptLines, minKeptFor(n, o))
	}
	covered := 0
	for _, a := range r.Annotations {
		covered += a.PrunedLineCount
		if a.OriginalEndLine-a.OriginalStartLine+1 != a.PrunedLineCount || strings.ContainsAny(a.Marker, "\n\r") {
			return errors.New("malformed annotation")
		}
	}
	if covered+r.Stats.KeptLines != n {
		return fmt.Errorf("annotations cover %d lines, %d cut", covered, n-r.Stats.KeptLines)
	}
	return nil
}

func appendUnique(dst []string, more ...string) []string {
	for _, m := range more {
		found := false
		for _, d := range dst {
			found = found || d == m
		}
		if !found {
			dst = append(dst, m)
		}
	}
	return dst
}
