package heuristic

import (
	"regexp"
	"strings"
)

// A goal whose title is about comments ("fix typo in jsdoc comment", "docs: correct the
// docstring of parse") is answered by comment lines: the fix edits prose, which shares
// little with the code around it, so comment lines are lifted above most code and ranked
// among themselves by their own match. On commits.dev (28 of 222 subjects ask about
// comments) recall at 20% of tokens rose 0.485 → 0.512 (heuristic) and 0.516 → 0.553
// (structural); code.dev has one such title. Only the first line (a commit subject, an issue
// title) is read: issue bodies mention comments for other reasons (templates, "see comment").
// ParseGoal decides it once per goal (Query.AboutComments).
var reCommentIntent = regexp.MustCompile(`(?i)(^\s*docs(\(.*?\))?!?:|\b(comments?|jsdoc|javadoc|godoc|tsdoc|docstrings?|doc ?comments?|typos?|misspell\w*|spelling)\b)`)

// titleMatches reports whether re matches the goal's first line (a commit subject, an issue
// title): the goal-kind rules read only it, since a body mentions comments, spelling or
// imports for other reasons (templates, "see comment", a traceback's imports).
func titleMatches(re *regexp.Regexp, goal string) bool {
	first, _, _ := strings.Cut(strings.TrimSpace(goal), "\n")
	return re.MatchString(first)
}

// AboutComments reports whether the goal's first line asks about comments or their prose.
func AboutComments(goal string) bool {
	return titleMatches(reCommentIntent, goal)
}

// commentLift is the floor a comment line is lifted to under a comments goal, with its own
// score filling the rest: comments rank above all code but the code that matches well, the
// matching comments first. It sits just under the heuristic's threshold, so in threshold
// mode a comment is kept when it matches, not merely for being one. (Damping code as well
// lost recall on commits.dev: the code a comment describes helps find the comment.)
const commentLift = 0.45

// LiftComments raises the scores of comment lines (of code), the analysed lines, in place
// when the goal is about comments.
func (a *Analysis) LiftComments(lines []string, scores []float64) {
	if !a.Query.AboutComments {
		return
	}
	comment := a.CommentLines(lines)
	n := len(lines)
	for i := 0; i < n; {
		if !comment[i] {
			i++
			continue
		}
		// A comment block is one unit: its best line, or the code it documents (the
		// first code line after it, across one blank line), ranks all of it.
		j := i
		best := 0.0
		for j < n && comment[j] {
			best = max(best, scores[j])
			j++
		}
		k := j
		if k < n && strings.TrimSpace(lines[k]) == "" {
			k++
		}
		if k < n && !comment[k] {
			best = max(best, scores[k])
		}
		for ; i < j; i++ {
			scores[i] = commentLift + (1-commentLift)*max(scores[i], best)
		}
	}
}

// CommentDamp scales the scores of comment lines of code when the goal is not about
// comments. Fixes change code: comments and docstrings are 40% of code.dev's non-blank
// lines but 12% of its gold lines (commits.dev: 25% and 17%), while an issue's prose
// matches a docstring's prose better than the code it describes. With DampCommentLines'
// bridging of lone comments, recall at 10/20/30% of tokens: heuristic code.dev
// 0.373/0.611/0.703 → 0.454/0.642/0.734, commits.dev 0.389/0.539/0.640 → 0.392/0.556/0.639;
// structural (which damps its blend, not its heuristic half, and spares doc comments above
// definitions) code.dev 0.446/0.668/0.699 → 0.475/0.680/0.717, commits.dev
// 0.459/0.625/0.710 → 0.447/0.638/0.720. Factors 0.7 and 0.75 were within a case or two of
// 0.8; 0.9 was too weak. Docs and logs are not damped.
const CommentDamp = 0.8

// DampComments scales the scores of comment lines (of code), the analysed lines, in place
// when the goal is not about comments; LiftComments handles the goals that are.
func (a *Analysis) DampComments(lines []string, scores []float64) {
	if !a.Query.AboutComments {
		DampCommentLines(lines, scores, a.CommentLines(lines))
	}
}

// DampCommentLines scales the scores of the lines comment marks by CommentDamp, except that
// a lone comment line between two code lines (blank lines aside) keeps at least the lower of
// their scores: a one-line note inside a relevant block should not cut it in two, which
// would cost a marker and split what is kept (heuristic at 10/20/30% on code.dev 0.443 /
// 0.615 / 0.717 → 0.454 / 0.642 / 0.734; bridging runs of two comment lines too was mixed).
func DampCommentLines(lines []string, scores []float64, comment []bool) {
	n := len(scores)
	blank := func(i int) bool { return strings.TrimSpace(lines[i]) == "" }
	for i := range n {
		if !comment[i] {
			continue
		}
		scores[i] *= CommentDamp
		// The line above first: in a comment block or docstring it is a comment, and the
		// line below need not be read.
		a := i - 1
		for a >= 0 && blank(a) {
			a--
		}
		if a < 0 || comment[a] {
			continue
		}
		b := i + 1
		for b < n && blank(b) {
			b++
		}
		// Code lines are not damped, so their scores are the ones the block had.
		if b < n && !comment[b] {
			scores[i] = max(scores[i], min(scores[a], scores[b]))
		}
	}
}

// CommentLines marks the lines of code that are comments or docstrings: line comments
// (//, #, --, ;), block comments (/* … */ and their * continuation lines, <!-- … -->) and
// Python docstrings (a triple-quoted string that starts its line). Preprocessor lines
// (#include, #define, …) and shebangs are code.
func CommentLines(lines []string) []bool {
	out := make([]bool, len(lines))
	var closer string // the end of the block comment or docstring we are in
	for i, l := range lines {
		t := trimLeftASCII(l)
		if closer != "" {
			out[i] = true
			if strings.Contains(t, closer) {
				closer = ""
			}
			continue
		}
		if t == "" {
			continue
		}
		switch t[0] {
		case '/', '-', ';', '#', '<', '"', '\'', 'r':
		default:
			continue // most lines of code: no comment starts with their first byte
		}
		switch {
		case strings.HasPrefix(t, "//"), strings.HasPrefix(t, "--"), strings.HasPrefix(t, ";"):
			out[i] = true
		case strings.HasPrefix(t, "#"):
			// #! is a shebang or a Rust inner attribute, #[ a Rust attribute.
			out[i] = !strings.HasPrefix(t, "#!") && !strings.HasPrefix(t, "#[") && !isPreprocessor(t)
		case strings.HasPrefix(t, "/*"):
			out[i] = true
			if !strings.Contains(t[2:], "*/") {
				closer = "*/"
			}
		case strings.HasPrefix(t, "<!--"):
			out[i] = true
			if !strings.Contains(t[4:], "-->") {
				closer = "-->"
			}
		case strings.HasPrefix(t, `"""`), strings.HasPrefix(t, `'''`),
			strings.HasPrefix(t, `r"""`), strings.HasPrefix(t, `r'''`):
			t = strings.TrimPrefix(t, "r")
			out[i] = true
			if !strings.Contains(t[3:], t[:3]) {
				closer = t[:3]
			}
		}
	}
	return out
}

// trimLeftASCII drops leading ASCII white space (the indentation of code).
func trimLeftASCII(l string) string {
	i := 0
	for i < len(l) && l[i] == ' ' { // the common indentation, in a loop of its own
		i++
	}
	for i < len(l) && (l[i] == ' ' || l[i] == '\t' || l[i] == '\r' || l[i] == '\v' || l[i] == '\f') {
		i++
	}
	return l[i:]
}

func isPreprocessor(t string) bool {
	w := strings.TrimSpace(t[1:])
	if w == "" {
		return false
	}
	switch w[0] { // the directives' initials: most '#' lines are comments, ruled out here
	case 'i', 'd', 'u', 'e', 'p', 'w', 'l':
	default:
		return false
	}
	for _, d := range [...]string{"include", "define", "undef", "if", "ifdef", "ifndef", "else", "elif", "endif", "pragma", "error", "warning", "line", "import"} {
		if strings.HasPrefix(w, d) && (len(w) == len(d) || w[len(d)] == ' ' || w[len(d)] == '\t' || w[len(d)] == '<' || w[len(d)] == '"' || w[len(d)] == '(') {
			return true
		}
	}
	return false
}
