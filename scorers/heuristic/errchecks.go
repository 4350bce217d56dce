package heuristic

import (
	"regexp"
	"strings"
)

// A goal that asks to handle or check an error ("pki: Handle error immediately after reading
// root from disk", "add error handling for …", "check the error returned by …") points at a
// call whose error is not looked at where it is returned. In Go that is a line assigning err
// whose next statement does not read err, or a line that throws an error away with "_".
//
// Evidence is thin: of commits.dev's 222 fixes, one Go goal asks this ("Handle error
// immediately after reading root from disk", the assignment followed by a use of what it
// returned); structural at 10 / 20 / 30% of tokens +0.0045 each (one case up, none down).
// No Debian fix moves (their dozen such goals are C, where the shape rarely appears).
// RESULTS.md, forty-third round.

// reErrorIntent matches a goal's first line that asks to handle, check or stop ignoring an
// error.
var reErrorIntent = regexp.MustCompile(`(?i)\b(handle[sd]?|handling|check(s|ed|ing)?|unchecked|ignor(e[sd]?|ing)|swallow(s|ed|ing)?|missing|propagat(e[sd]?|ing))\s+((the|an|of|all|any)\s+)?(\w+\s+){0,2}errors?\b|\berrors?\s+(handling|check(s|ing)?)\b|\berrcheck\b`)

// AboutErrorChecks reports whether the goal's first line asks to handle or check an error.
func AboutErrorChecks(goal string) bool {
	return titleMatches(reErrorIntent, goal)
}

// uncheckedErrorLines returns, in order, the Go lines that assign err when the next non-blank
// line does not read it, and the lines that discard a result with "_". The lines are scanned
// byte by byte: with regexps, a 10,000-line Go file took 13 ms.
func uncheckedErrorLines(lines []string) []int {
	var out []int
	for i, l := range lines {
		if !strings.Contains(l, "_") && !strings.Contains(l, "err") {
			continue
		}
		if discards(l) {
			out = append(out, i)
			continue
		}
		if !assignsErr(l) {
			continue
		}
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
			j++
		}
		if j == len(lines) || !strings.Contains(lines[j], "err") {
			out = append(out, i)
		}
	}
	return out
}

// assignsErr reports whether l assigns err ("err =", "err :=", "x, err ="): err at the line's
// start or after a space or a comma, then "=" or ":=" (not "==") and something after it.
func assignsErr(l string) bool {
	for p := 0; ; {
		k := strings.Index(l[p:], "err")
		if k < 0 {
			return false
		}
		s := p + k
		p = s + 3
		if s > 0 && !isSpaceByte(l[s-1]) && l[s-1] != ',' {
			continue
		}
		q := skipSpaceBytes(l, p)
		if q < len(l) && l[q] == ':' {
			q++
		}
		if q+1 < len(l) && l[q] == '=' && l[q+1] != '=' {
			return true
		}
	}
}

// discards reports whether l throws a value away with the blank identifier: "_ = f()" as a
// statement, or "x, _ := f()".
func discards(l string) bool {
	t := strings.TrimLeft(l, " \t\n\f\r")
	if strings.HasPrefix(t, "_") {
		if q := skipSpaceBytes(t, 1); q < len(t) && t[q] == '=' && !blank(t[q+1:]) {
			return true
		}
	}
	for p := 0; ; {
		k := strings.IndexByte(l[p:], ',')
		if k < 0 {
			return false
		}
		p += k + 1
		q := skipSpaceBytes(l, p)
		if q >= len(l) || l[q] != '_' {
			continue
		}
		q = skipSpaceBytes(l, q+1)
		if q < len(l) && l[q] == ':' {
			q++
		}
		if q < len(l) && l[q] == '=' && !blank(l[q+1:]) {
			return true
		}
	}
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// skipSpaceBytes returns the index of the first byte of l at or after p that is not a space.
func skipSpaceBytes(l string, p int) int {
	for p < len(l) && isSpaceByte(l[p]) {
		p++
	}
	return p
}

// blank reports whether s is empty or only spaces.
func blank(s string) bool {
	return skipSpaceBytes(s, 0) == len(s)
}
