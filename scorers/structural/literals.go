package structural

import (
	"regexp"
	"strings"

	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
)

// A goal often quotes a string the file spells exactly: a path (`/usr/share/zoneinfo`,
// `linux/if_tunnel.h`), an option or header (`--pastebin`, `Transfer-Encoding`), a file or
// module name (`config.toml`, `jeeves.cli`), a config key (`exist_ok`). The term model splits
// such a token into words that are each common in the file; the whole token is not. Lines
// holding one were gold 14–18% of the time on the dev sets and 17–26% on 4,111 Debian fixes
// (base rate near 2%), when the token is on at most 4 lines of the file. Structural recall
// at 10 / 20 / 30% of tokens: swe-bench +0.008 / +0.010 / +0.003, commits 0 / +0.003 / +0.0045,
// Debian +0.0032 / +0.0029 / +0.0027 (RESULTS.md, thirty-fourth round).
const (
	// literalFloor is the share of the file's best score a literal's line is lifted to: near
	// the top, below the very best line (0.9: the same out of sample; commits.dev at 20% lost
	// its one win).
	literalFloor = 0.95
	// literalLines: a literal on more code lines than this does not tell them apart (at 4,
	// commits.dev lost 3 cases at 20% to `--help` in help texts and `os.Stderr` in 4 places).
	literalLines = 2
	// minLiteral is the shortest token taken for a literal ("a/b", "x-y" are prose).
	minLiteral = 5
	// maxLiterals bounds the work on a long goal (an issue quoting a traceback and its
	// environment holds a few dozen; each costs a pass over the lines).
	maxLiterals = 256
	// maxLiteralChecks bounds the literal comparisons of one search (about 10 ms of them); no
	// case of the dev sets or of the 4,111 Debian fixes reaches it (their results did not move).
	maxLiteralChecks = 1 << 21
)

var (
	reGoalToken = regexp.MustCompile(`\S+`)
	reTwoLetter = regexp.MustCompile(`[A-Za-z]{2}`)
	reDecimal   = regexp.MustCompile(`\d\.\d`)
)

// goalLiterals returns the tokens of goal that join words with inner punctuation (/ - . _),
// stripped of the quotes, brackets and sentence punctuation around them: not links, issue
// references, versions or numbers, and not "and/or".
func goalLiterals(goal string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range reGoalToken.FindAllString(goal, -1) {
		const around = "`'\"()[]<>,;:!?*"
		t = strings.TrimRight(strings.TrimRight(strings.Trim(t, around), "."), around)
		if len(t) < minLiteral || seen[t] || !strings.ContainsAny(t, "/-._") ||
			strings.Contains(t, "://") || strings.Contains(t, "www.") || strings.HasPrefix(t, "#") ||
			!reTwoLetter.MatchString(t) || reDecimal.MatchString(t) || strings.EqualFold(t, "and/or") {
			continue
		}
		seen[t] = true
		out = append(out, t)
		if len(out) == maxLiterals {
			break
		}
	}
	return out
}

// literalsKey is the Query.Memo key of a goal's literals (goalLiterals).
type literalsKey struct{}

// goalLiteralsOf is goalLiterals(goal) for the goal q was parsed from, found once a goal.
func goalLiteralsOf(q *heuristic.Query, goal string) []string {
	return q.Memo(literalsKey{}, func() any { return goalLiterals(goal) }).([]string)
}

// liftLiteralsOf raises, in place, the code lines (not comments) that hold one of the goal's
// literals lits (goalLiteralsOf) to literalFloor of the best score, when the literal is on at
// most literalLines of them.
func liftLiteralsOf(lits []string, lines []string, s []float64, comment []bool) {
	if len(lits) == 0 {
		return
	}
	best := 0.0
	for _, v := range s {
		best = max(best, v)
	}
	for _, at := range codeLinesHolding(lits, lines, comment) {
		if len(at) > literalLines {
			continue
		}
		for _, i := range at {
			s[i] = max(s[i], literalFloor*best)
		}
	}
}

// codeLinesHolding returns, for each literal (minLiteral bytes or more), the code lines (not
// comment[i]) holding it, at most literalLines+1 of them. Past fewLiterals literals it reads
// the lines once whatever their number: every position's first four bytes are looked up in a
// bit table of the literals' first four bytes, and only a hit is compared. A search per literal
// took 20 ms for 200 literals absent from 10,000 lines (BenchmarkLiftLiterals). When literals
// share their first four bytes with most of the text, every position is compared with each of
// them: past maxLiteralChecks comparisons the search gives up and finds nothing, so the lift is
// skipped rather than made from part of the file (256 literals `aaaa_aaaa_x…` over 2 MB of
// `aaaa_` took 627 ms; BenchmarkLiftLiteralsSharedHead).
func codeLinesHolding(lits []string, lines []string, comment []bool) [][]int {
	if len(lits) <= fewLiterals {
		return codeLinesHoldingEach(lits, lines, comment)
	}
	checks := 0
	var table [1 << 10]uint64 // 65,536 bits
	slot := func(w uint32) uint32 { return (w * 0x9E3779B1) >> 16 }
	byHead := map[uint32][]int{}
	for k, lit := range lits {
		w := head4(lit, 0)
		table[slot(w)/64] |= 1 << (slot(w) % 64)
		byHead[w] = append(byHead[w], k)
	}
	at := make([][]int, len(lits))
	for i, l := range lines {
		if comment != nil && comment[i] {
			continue
		}
		for p := 0; p+4 <= len(l); p++ {
			w := head4(l, p)
			if table[slot(w)/64]&(1<<(slot(w)%64)) == 0 {
				continue
			}
			ks := byHead[w]
			if checks += len(ks); checks > maxLiteralChecks {
				return make([][]int, len(lits))
			}
			for _, k := range ks {
				a := at[k]
				if len(a) <= literalLines && (len(a) == 0 || a[len(a)-1] != i) && strings.HasPrefix(l[p:], lits[k]) {
					at[k] = append(a, i)
				}
			}
		}
	}
	return at
}

// fewLiterals is the most literals codeLinesHolding searches for one by one: a goal quotes
// one or two as a rule, and a vectorised search per literal reads a line faster than the
// one-pass scan's lookup at every position (a 200-line prune with one literal spent 3.5% of
// the server's time in that scan). Each search is linear in the line, so no budget is
// needed below this many.
const fewLiterals = 4

// codeLinesHoldingEach is codeLinesHolding by a search per literal and line.
func codeLinesHoldingEach(lits []string, lines []string, comment []bool) [][]int {
	at := make([][]int, len(lits))
	for i, l := range lines {
		if comment != nil && comment[i] {
			continue
		}
		for k, lit := range lits {
			if len(at[k]) <= literalLines && strings.Contains(l, lit) {
				at[k] = append(at[k], i)
			}
		}
	}
	return at
}

// head4 packs the four bytes of s from p into the key codeLinesHolding looks literals up by.
func head4(s string, p int) uint32 {
	return uint32(s[p]) | uint32(s[p+1])<<8 | uint32(s[p+2])<<16 | uint32(s[p+3])<<24
}
