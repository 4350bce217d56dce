package heuristic

import (
	"math"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// Term is one goal term with its weight.
type Term struct {
	Text   string
	Weight float64
	// Exact marks a whole multi-part identifier from the goal (e.g. "separability_matrix").
	Exact bool
	// Code marks a term that appeared as code in the goal (backticks, fences, tracebacks,
	// identifiers with _ or camelCase, call syntax).
	Code bool
	// Named marks a single word the goal uses as an API name: a member ("xr.where"), a call
	// ("get(") or a whole code span ("`where`").
	Named bool
	// Display is the term as the goal spelled it (e.g. "closeIdleConns"), for reasons.
	Display string
	// short marks a short form of a goal word (see appendAbbrevTerms); it matches its plural
	// too, however short ("dims").
	short bool
}

// Query is a goal analysed into weighted terms. It is immutable (Memo aside) and safe to
// share.
type Query struct {
	Terms []Term
	// AboutComments: the goal's first line asks about comments (see LiftComments).
	AboutComments bool
	// AboutSpelling: the goal's first line asks to fix spelling (see LiftGoalKinds).
	AboutSpelling bool
	// AboutDeclarations: the goal's first line reports an undeclared name (see LiftGoalKinds).
	AboutDeclarations bool
	// AboutFormatStrings: the goal's first line is about format strings (see
	// LiftGoalKinds).
	AboutFormatStrings bool
	// AboutGrammar: the goal's first line asks to fix grammar or wording (see
	// LiftGoalKinds).
	AboutGrammar bool
	// AboutCrashes: the goal's first line reports a panic or a crash (see LiftGoalKinds).
	AboutCrashes bool
	// AboutErrorChecks: the goal's first line asks to handle or check an error (see
	// LiftGoalKinds).
	AboutErrorChecks bool
	// AboutLinks: the goal's first line is about a dead or outdated link (see LiftGoalKinds).
	AboutLinks bool
	// AboutBuilds: the goal's first line reports a build failure (see LiftGoalKinds).
	AboutBuilds bool
	// Cites are the places in files the goal points at (see CitedLines and Analysis.LiftCites).
	Cites []Cite
	index *termTable // hash of a term or of one of its variants -> index in Terms

	memo *queryMemo // see Memo; nil for a Query not made by ParseGoal
}

// queryMemo holds what other scorers derived from a query's goal (Query.Memo).
type queryMemo struct {
	mu sync.Mutex
	m  map[any]any
}

// Memo returns what f derives from the goal this query was parsed from, computing it on the
// first call for key only: a scorer building on the heuristic keeps its own reading of the
// goal (structural's quoted literals) for as long as the query stays in the goal cache, which
// is the agent's session. f must not call Memo on q; the value is shared, not to be modified.
func (q *Query) Memo(key any, f func() any) any {
	if q.memo == nil {
		return f()
	}
	q.memo.mu.Lock()
	defer q.memo.mu.Unlock()
	if v, ok := q.memo.m[key]; ok {
		return v
	}
	v := f()
	if q.memo.m == nil {
		q.memo.m = map[any]any{}
	}
	q.memo.m[key] = v
	return v
}

var (
	reFence    = regexp.MustCompile("(?s)```.*?```")
	reBacktick = regexp.MustCompile("`[^`\n]+`")
	reFrame    = regexp.MustCompile(`File "([^"]+)", line \d+, in (\w+)`)
	// Letters of any script: a document's words hold every non-ASCII byte (wordBytes), so
	// an identifier such as größe or 総計 is one term on both sides; ASCII-only, the goal
	// split it at each such letter and never matched its definition.
	reIdent = regexp.MustCompile(`[\p{L}_][\p{L}\p{N}_]*(\.[\p{L}_][\p{L}\p{N}_]*)*(\()?`)
)

// ParseGoal extracts weighted terms from a goal: identifiers split into parts, whole
// identifiers, words of prose minus stop words and numbers written on their own
// (goalNumbers), with code-like terms, traceback frames and the goal's first line weighted
// up, and weights damped by repetition; then the short forms of its prose words
// (appendAbbrevTerms) and the compounds of adjacent ones (appendCompoundTerms), as code
// spells them.
func ParseGoal(goal string) *Query { return parseGoal(goal) }

// goalCache keeps the queries of recent goals: an agent sends the same goal with many reads,
// and queries are immutable. It holds at most maxCachedGoals goals and maxCachedGoalBytes of
// goal text (with their queries, a few MiB); when full it is emptied, which is simpler than
// an LRU and costs a session one parse of its goal. A goal is cached up to maxGoalBytes, the
// most a query reads: an issue pasted whole (14 of the dev sets' 1,046 goals are over 4 KB,
// one 22.7 KB) costs a millisecond or more to parse, on every read of the session, when not
// cached. The key is a copy, so a goal sliced from a request body does not keep the body.
type goalCache struct {
	mu       sync.Mutex
	m        map[string]*Query
	bytes    int // the cached goals' length
	maxBytes int // maxCachedGoalBytes, smaller in tests
}

const (
	maxCachedGoals     = 256
	maxCachedGoalBytes = 4 << 20
)

func newGoalCache() *goalCache {
	return &goalCache{m: map[string]*Query{}, maxBytes: maxCachedGoalBytes}
}

// parse is ParseGoal through the cache (none for a zero Scorer's nil cache).
func (c *goalCache) parse(goal string) *Query {
	if c == nil || len(goal) > maxGoalBytes {
		return parseGoal(goal)
	}
	c.mu.Lock()
	q, ok := c.m[goal]
	c.mu.Unlock()
	if ok {
		return q
	}
	q = parseGoal(goal)
	c.mu.Lock()
	defer c.mu.Unlock()
	if cached, ok := c.m[goal]; ok { // parsed meanwhile: every caller shares one query
		return cached
	}
	if len(c.m) >= maxCachedGoals || c.bytes+len(goal) > c.maxBytes {
		clear(c.m)
		c.bytes = 0
	}
	c.m[strings.Clone(goal)] = q
	c.bytes += len(goal)
	return q
}

// maxGoalBytes bounds the goal text analysed. The goal's passes (code spans, frames, every
// identifier, cites, comment intent) are linear but cost about 0.5 s a megabyte, do not look
// at the request's context, and a goal is bounded only by the server's body limit (~11 MB):
// an 8 MB goal held Score for 4 s whatever its deadline. 64 KiB is three times the longest
// goal of the dev sets (a 22.7 KB SWE-bench issue with its traceback) and parses in tens of
// milliseconds; maxGoalTerms would keep only the heaviest terms of a longer one anyway.
const maxGoalBytes = 64 << 10

// clipGoal cuts a goal longer than maxGoalBytes at its last space, tab or line break within
// the bound (a word is not cut in two), or at the last whole UTF-8 character if there is none
// in its second half.
func clipGoal(goal string) string {
	if len(goal) <= maxGoalBytes {
		return goal
	}
	if k := strings.LastIndexAny(goal[:maxGoalBytes], " \t\n"); k >= maxGoalBytes/2 {
		return goal[:k]
	}
	k := maxGoalBytes
	for k > 0 && !utf8.RuneStart(goal[k]) {
		k--
	}
	return goal[:k]
}

func parseGoal(goal string) *Query {
	goal = clipGoal(goal)
	type acc struct {
		count   float64
		weight  float64
		exact   bool
		code    bool
		named   bool
		display string
	}
	terms := map[string]*acc{}
	// count records one more sight of term t at weight w (the term's weight is its highest).
	count := func(t, display string, w float64) *acc {
		a := terms[t]
		if a == nil {
			a = &acc{display: display}
			terms[t] = a
		}
		a.count++
		a.weight = max(a.weight, w)
		return a
	}
	add := func(t, display string, w float64, exact, code, named bool) {
		if len(t) < 3 || isNumeric(t) || (isStopWord(t) && (!named || isKeyword(t))) {
			return
		}
		a := count(t, display, w)
		a.exact = a.exact || exact
		a.code = a.code || code
		a.named = a.named || named
	}
	addIdent := func(id string, w float64, code, whole bool) {
		call := strings.HasSuffix(id, "(")
		id = strings.TrimSuffix(id, "(")
		dotted := strings.Contains(id, ".")
		for _, seg := range strings.Split(id, ".") {
			parts, joined, multi := identParts(seg)
			codeLike := code || call || IsCodeLike(seg) || dotted
			// A word that is a member or a call ("xr.where", "get(") or a whole code span
			// ("`where`") names an API even when it is an English stop word.
			named := (dotted || call || whole) && !multi
			bonus := 1.0
			if codeLike {
				bonus = 1.6
			}
			// A part of a longer identifier ("close" of closeIdleConns) is weaker evidence
			// than the identifier itself or the same word on its own.
			partW := w * bonus
			if multi {
				partW *= identPartWeight
				add(joined, seg, w*bonus*1.4, true, true, false)
			}
			for _, p := range parts {
				add(p, p, partW, false, codeLike, named)
			}
		}
	}

	codeSpans := reFence.FindAllString(goal, -1)
	codeSpans = append(codeSpans, reBacktick.FindAllString(goal, -1)...)
	for _, span := range codeSpans {
		ids := reIdent.FindAllString(span, -1)
		for _, id := range ids {
			addIdent(id, 1.3, true, len(ids) == 1 && strings.HasPrefix(span, "`") && !strings.HasPrefix(span, "```"))
		}
	}
	for _, m := range reFrame.FindAllStringSubmatch(goal, -1) {
		addIdent(m[2], 2.0, true, true)
		base := m[1][strings.LastIndexAny(m[1], `/\`)+1:]
		addIdent(strings.TrimSuffix(base, ".py"), 1.2, true, false)
	}
	first, _, _ := strings.Cut(strings.TrimSpace(goal), "\n")
	for _, id := range reIdent.FindAllString(first, -1) {
		addIdent(id, 1.5, false, false)
	}
	for _, id := range reIdent.FindAllString(goal, -1) {
		addIdent(id, 1.0, false, false)
	}
	// Numbers are not words (add drops them: "5.1.2" is three of them), but a number the goal
	// writes on its own is a literal a line may hold.
	for _, n := range goalNumbers(goal) {
		count(n, n, numberWeight)
	}

	q := &Query{memo: &queryMemo{}, AboutComments: AboutComments(goal), AboutSpelling: AboutSpelling(goal),
		AboutDeclarations: AboutDeclarations(goal), AboutFormatStrings: AboutFormatStrings(goal),
		AboutGrammar: AboutGrammar(goal), AboutCrashes: AboutCrashes(goal),
		AboutErrorChecks: AboutErrorChecks(goal), AboutLinks: AboutLinks(goal),
		AboutBuilds: AboutBuilds(goal),
		Cites:       parseCites(goal)}
	for t, a := range terms {
		// Repetition matters, with diminishing returns; each mention above counted once per
		// pass, so normalise by the passes that could see it.
		w := a.weight * (1 + 0.5*math.Log1p(a.count-1))
		q.Terms = append(q.Terms, Term{Text: t, Weight: w, Exact: a.exact, Code: a.code, Named: a.named, Display: a.display})
	}
	// The terms came out of a map: put them in a fixed order before the short forms are
	// derived, since a short form two words share (dir from directory and directories) takes
	// the weight of the first that reaches it. In map order that made scores vary from run
	// to run.
	sortTerms(q.Terms)
	q.Terms = appendAbbrevTerms(q.Terms)
	sortTerms(q.Terms)
	if len(q.Terms) > maxGoalTerms {
		q.Terms = q.Terms[:maxGoalTerms]
	}
	q.Terms = appendCompoundTerms(goal, q.Terms)
	var hashes []termHash
	var idx []int32
	for i, t := range q.Terms {
		vs := variants(t.Text)
		if t.short && len(vs) == 1 {
			vs = append(vs, t.Text+"s")
		}
		for _, v := range vs {
			hashes = append(hashes, hashString(v))
			idx = append(idx, int32(i))
		}
	}
	q.index = newTermTable(hashes, idx)
	return q
}

// sortTerms orders terms by weight, heaviest first, then by text (unique among a goal's
// terms).
func sortTerms(ts []Term) {
	sort.Slice(ts, func(i, j int) bool {
		if ts[i].Weight != ts[j].Weight {
			return ts[i].Weight > ts[j].Weight
		}
		return ts[i].Text < ts[j].Text
	})
}

// identPartWeight scales the parts of a multi-part goal identifier.
var identPartWeight = 0.5

// maxGoalTerms bounds the work a very long goal (a whole issue with logs) can cause.
const maxGoalTerms = 256

// Lookup returns the index of the goal term whose hash (or a variant's) is h.
func (q *Query) lookup(h termHash) (int32, bool) {
	return q.index.get(h)
}

// Len is the number of goal terms.
func (q *Query) Len() int { return len(q.Terms) }

func isNumeric(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all also am an and any are aren as at be
because been before being below between both but by can cannot could did didn do does doesn doing don down
during each either else etc even ever every few for from further get gets got had has hasn have having he her
here hers him his how however i if in into is isn it its itself just like likely lot made make makes many may
me might more most much must my myself need needs new no nor not now of off often on once one only or other
ought our ours out over own per please quite rather really said same see seem seems she should shouldn since
so some something still such than that the their theirs them then there these they thing things think this
those though through thus to too try trying two under until up upon us use used uses using very via want wants
was wasn way we well were weren what when where whether which while who whom why will with within without
won would wouldn yes yet you your yours also actually already always another anyway around back
currently expected following instead issue issues problem problems example examples reproduce reproducing
steps version versions output behavior behaviour result results work works working worked bug bugs fix fixes
fixed fixing https http www com org github html self cls none true false def return class import from pass
elif else args kwargs print`) {
		m[w] = true
	}
	return m
}()

func isStopWord(w string) bool { return stopWords[w] }

// keywords are the stop words that stay out even as code (see ParseGoal): language
// keywords, and the receivers and literals every snippet is full of.
var keywords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`and are but can for from has its not the was self cls none true false
def return class import pass elif else args kwargs print this new with while`) {
		m[w] = true
	}
	return m
}()

func isKeyword(w string) bool { return keywords[w] }
