package structural

import "strings"

// A condition the goal's words single out is read with the branch it opens. When an `if`,
// `else`, loop, `case` or handler line is among the file's best lines, the short body below
// it (by indentation) and its closing brace score at least branchShare of it. What the
// branch does is the behaviour the goal describes, and it often shares no word with the
// goal: "powershell completion fix no file comp directive" (cobra@7223a997c8a0) matches
// `if (($Directive -band $ShellCompDirectiveNoFileComp) -ne 0 )`, and the fix is the
// comments and `return` inside it, which were cut between the kept condition and its
// closing brace. commits.dev at 10/20/30% of tokens 0.501/0.673/0.751 ->
// 0.503/0.676/0.753 (2 cases up at each budget, none down; code.dev, docs.dev and logs.dev
// unchanged); Debian's 4,111 fixes +0.002/+0.000/+0.001. The body stays below its header:
// at a share of 0.97 or 1 the header lost its place ahead of the body and commits lost
// cases at 20%; bodies up to 30 lines or headers down to 0.85 of the best each lost one.
// Lifting headers toward their bodies, and any header's short body, lost (RESULTS.md,
// thirty-third round).
const (
	branchTop   = 0.9 // a header scoring at least this share of the file's best line
	branchShare = 0.9 // its body's floor, relative to the header
	branchLines = 20  // longer bodies (non-blank lines) are not lifted
)

// liftBranches raises the bodies of the best-scored branch headers of code (in place).
func liftBranches(lines []string, s []float64) {
	best := 0.0
	for _, v := range s {
		best = max(best, v)
	}
	if best == 0 {
		return
	}
	orig := append([]float64(nil), s...)
	for i, l := range lines {
		if orig[i] < branchTop*best || len(l) > 500 || !isBranchHeader(l) {
			continue
		}
		floor := branchShare * orig[i]
		ind := indentOf(l)
		var body []int
		last := i
		for j := i + 1; j < len(lines) && len(body) <= branchLines; j++ {
			if isBlank(lines[j]) {
				continue
			}
			if indentOf(lines[j]) <= ind {
				break
			}
			body = append(body, j)
			last = j
		}
		if len(body) == 0 || len(body) > branchLines {
			continue
		}
		for _, j := range body {
			s[j] = max(s[j], floor)
		}
		if e := last + 1; e < len(lines) {
			if t := strings.TrimSpace(lines[e]); t == "}" || t == "};" {
				s[e] = max(s[e], floor)
			}
		}
	}
}

// branchKeywords open a branch or a loop in the languages structural reads.
var branchKeywords = map[string]bool{
	"if": true, "elif": true, "else": true, "for": true, "while": true, "switch": true,
	"case": true, "default": true, "except": true, "catch": true, "unless": true,
}

// isBranchHeader reports whether l starts (after a closing brace) with a branch keyword.
func isBranchHeader(l string) bool {
	t := strings.TrimLeft(l, " \t")
	t = strings.TrimLeft(strings.TrimPrefix(t, "}"), " \t")
	k := 0
	for k < len(t) && isIdentByte(t[k]) {
		k++
	}
	return k > 0 && branchKeywords[t[:k]]
}
