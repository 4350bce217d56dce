package heuristic

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Cite is a place in a file that the goal points at: a traceback frame, a compiler's or a
// linter's message, a stack trace's line. An agent asking about a crash pastes the trace; the
// frame that lies in the file being read names the very line to keep.
type Cite struct {
	// File is the path as the goal wrote it, with / separators.
	File string
	// Line is 1-based.
	Line int
	// Func is the function the frame names ("" when its format names none, or for a
	// module-level frame).
	Func string
}

// The formats cited, each with the path, the line and (when it has one) the function:
//
//	File "/x/_pytest/_io/saferepr.py", line 23, in _format_repr_exception   (Python)
//	src/_pytest/python.py:1163: in getfixtureclosure                        (pytest)
//	    at handle (/srv/app/lib/router/layer.js:95:5)                       (Node, Java)
//	/go/src/app/server.go:123 +0x1d, --> src/main.rs:12:5, x.c:7:3: error   (any path:line)
//	PHP Fatal error: ... in /var/www/index.php on line 12                   (PHP)
//	github.com/o/r/blob/<ref>/seaborn/_core/scales.py#L377-L382             (a permalink)
//
// A permalink to a file's lines (GitHub's /blob/, GitLab's /-/blob/) is how an issue points
// at code it suspects: 11 of code.dev's 107 issues link lines of the very file, 9 of them
// within 7 lines of the fix. It names no function, so its lines count as a bare cite's
// (citeNear); a range counts line by line, at most maxPermalinkLines of it. Measured in
// scorers/structural/RESULTS.md (thirty-second round): structural on code.dev 2 cases up at
// 10% of tokens and 1 at 20% and 30%, none down; no Debian fix's goal has such a link.
var (
	rePyFrame   = regexp.MustCompile(`File "([^"\n]+)", line (\d+)(?:, in ([\w<>.]+))?`)
	reAtFrame   = regexp.MustCompile(`\bat ([\w$.<>]+) ?\(([^()\s]+?):(\d+)(?::\d+)?\)`)
	rePathLine  = regexp.MustCompile(`([\w.\-/\\]*[\w\-]\.(?:py|pyi|go|js|mjs|cjs|jsx|ts|tsx|java|kt|scala|rs|c|h|cc|cpp|cxx|hh|hpp|cs|rb|php|sh|bash|swift|ex|exs|lua|pl|pm|yml|yaml|toml)):(\d+)(?::\d+)?(?:: in ([\w<>]+))?`)
	rePHPLine   = regexp.MustCompile(`in (\S+\.php) on line (\d+)`)
	rePermalink = regexp.MustCompile(`(?:github\.com|gitlab\.com)/[^\s/]+/[^\s/]+/(?:-/)?blob/[^\s/]+/([^\s#?)\]>"']+)#L(\d+)(?:-L?(\d+))?`)
)

// maxPermalinkLines bounds the lines one permalink's range cites (a link to a whole function
// or file would otherwise lift all of it).
const maxPermalinkLines = 20

// maxCites bounds the cites kept from one goal (a goal that pastes a whole log).
const maxCites = 64

// parseCites returns the places goal cites, each once, by format: frames that name their
// function first, then bare paths with a line that no frame cited.
func parseCites(goal string) []Cite {
	if !strings.ContainsAny(goal, ":\"#") {
		return nil
	}
	var out []Cite
	type place struct {
		base string
		line int
	}
	seen := map[place]bool{}
	add := func(file, line, fn string) {
		n, err := strconv.Atoi(line)
		if err != nil || n <= 0 || len(out) >= maxCites {
			return
		}
		file = strings.ReplaceAll(file, `\`, "/")
		p := place{file[strings.LastIndexByte(file, '/')+1:], n}
		if seen[p] {
			return
		}
		seen[p] = true
		if strings.HasPrefix(fn, "<") { // <module>, <lambda>, <listcomp>
			fn = ""
		}
		out = append(out, Cite{File: file, Line: n, Func: fn[strings.LastIndexByte(fn, '.')+1:]})
	}
	for _, m := range rePyFrame.FindAllStringSubmatch(goal, -1) {
		add(m[1], m[2], m[3])
	}
	for _, m := range reAtFrame.FindAllStringSubmatch(goal, -1) {
		add(m[2], m[3], m[1])
	}
	for _, m := range rePathLine.FindAllStringSubmatch(goal, -1) {
		add(m[1], m[2], m[3])
	}
	for _, m := range rePHPLine.FindAllStringSubmatch(goal, -1) {
		add(m[1], m[2], "")
	}
	for _, m := range rePermalink.FindAllStringSubmatch(goal, -1) {
		from, _ := strconv.Atoi(m[2])
		to := from
		if m[3] != "" {
			to, _ = strconv.Atoi(m[3])
		}
		for n := from; n <= min(to, from+maxPermalinkLines-1); n++ {
			add(m[1], strconv.Itoa(n), "")
		}
	}
	return out
}

// samePath reports whether a cited path and the path of the text name the same file: the
// same base name and, when both have one, the same directory above it. A trace from an
// installed package (/usr/lib/python3.8/site-packages/_pytest/_io/saferepr.py) names the
// checkout's src/_pytest/_io/saferepr.py; __init__.py of another package does not.
func samePath(cited, path string) bool {
	slash := func(r rune) bool { return r == '/' || r == '\\' }
	cp, pp := strings.FieldsFunc(cited, slash), strings.FieldsFunc(path, slash)
	if len(cp) == 0 || len(pp) == 0 {
		return false
	}
	for k := 1; k <= 2 && k <= len(cp) && k <= len(pp); k++ {
		if cp[len(cp)-k] != pp[len(pp)-k] {
			return false
		}
	}
	return true
}

// funcLookBack is how far above a cited line its frame's function must be named. A trace
// taken from another version of the file cites lines that have moved; when the function is
// not named within this many lines above, the cite is not trusted.
const funcLookBack = 300

// CitedLines returns the 0-based indices of the lines of a text at path that q's goal
// cites, ascending, each once: the cites whose path is the text's (samePath) and whose line
// exists. framed reports, for each, whether its frame named a function and the function is
// named at or above the line: a frame of this version of the file, not of an older one. A
// cite whose function is named elsewhere only is dropped.
func (q *Query) CitedLines(path string, lines []string) (cited []int, framed []bool) {
	if len(q.Cites) == 0 || path == "" {
		return nil, nil
	}
	at := map[int]bool{}
	for _, c := range q.Cites {
		i := c.Line - 1
		if i >= len(lines) || !samePath(c.File, path) {
			continue
		}
		f := false
		if c.Func != "" {
			if !namedAbove(lines, i, c.Func) {
				continue
			}
			f = true
		}
		if seen, ok := at[i]; !ok || f && !seen {
			at[i] = f
		}
	}
	if len(at) == 0 {
		return nil, nil
	}
	for i := range at {
		cited = append(cited, i)
	}
	slices.Sort(cited)
	framed = make([]bool, len(cited))
	for k, i := range cited {
		framed[k] = at[i]
	}
	return cited, framed
}

// namedAbove reports whether fn is named, as a whole identifier, on line i or on one of the
// funcLookBack lines above it.
func namedAbove(lines []string, i int, fn string) bool {
	for j := i; j >= 0 && j >= i-funcLookBack; j-- {
		l := lines[j]
		for off := 0; ; {
			k := strings.Index(l[off:], fn)
			if k < 0 {
				break
			}
			k += off
			end := k + len(fn)
			if (k == 0 || !isIdentCont(l[k-1])) && (end == len(l) || !isIdentCont(l[end])) {
				return true
			}
			off = end
		}
	}
	return false
}

// citeNear is the floor of a line cited without a function (x.c:7: error), and of the lines
// next to a framed one: a frame cites a statement's first or last line, and the statement
// often spans its neighbours.
const citeNear = 0.8

// LiftCites raises, in place, the scores of the lines that the goal cites in the request's
// text (CitedLines, found once by ScoreWithAnalysis for code): a line a frame cites to 1 and
// its non-blank neighbours to at least citeNear; a line cited without a function to at least
// citeNear. A scorer building on the heuristic's answer (structural) lifts its own blend
// with the same cites.
func (a *Analysis) LiftCites(lines []string, scores []float64) {
	for k, i := range a.cited {
		if !a.framed[k] {
			scores[i] = max(scores[i], citeNear)
			continue
		}
		scores[i] = 1
		for _, j := range []int{i - 1, i + 1} {
			if j >= 0 && j < len(scores) && strings.TrimSpace(lines[j]) != "" {
				scores[j] = max(scores[j], citeNear)
			}
		}
	}
}
