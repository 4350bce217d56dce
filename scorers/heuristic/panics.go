package heuristic

import (
	"regexp"
	"strings"
)

// A goal that reports a panic or crash ("caddytls: panic when using …", "Fix crash if logging
// error is not HandlerError") names where it happened, not what failed. In Go, one line shape
// panics on a value it did not expect: a type assertion without the comma-ok form
// (`ctx.Value(k).(*caddy.Replacer)`), which the fix turns into a checked one. (errchecks.go
// finds the other failure Go lets through unchecked, an error nobody reads.)
//
// Evidence is thin: of commits.dev's 222 fixes, two Go goals report a panic or crash and hold
// such a line; structural at 10 / 20 / 30% of tokens 0 / +0.0045 / +0.0045 (one case up,
// none down). No Debian fix moves (no Go file under such a goal holds one); the same shape
// read in C, a call that may return NULL assigned and not tested on the next line, was
// neutral there (+0.0006 / +0.0002 / -0.0004 pooled, 4/7 cases at 20%) and is not used.
// RESULTS.md, forty-third round.

// reCrashIntent matches a goal's first line that reports a panic, crash or nil dereference.
var reCrashIntent = regexp.MustCompile(`(?i)\b(panic(s|ked|king)?|crash(es|ed|ing)?|segfaults?|segmentation fault|nil (pointer|dereference|deref|map)|null (pointer|dereference|deref))\b`)

// AboutCrashes reports whether the goal's first line reports a panic or a crash.
func AboutCrashes(goal string) bool {
	return titleMatches(reCrashIntent, goal)
}

// uncheckedAssertionLines returns, in order, the lines holding a Go type assertion x.(T) that
// is neither a comma-ok form (v, ok := x.(T)) nor a type switch (x.(type)).
func uncheckedAssertionLines(lines []string) []int {
	var out []int
	for i, l := range lines {
		if strings.Contains(l, ".(") && hasAssertion(l) && !strings.Contains(l, ", ok") && !strings.Contains(l, ".(type)") {
			out = append(out, i)
		}
	}
	return out
}

// hasAssertion reports whether l holds ".(" after an identifier, a closing bracket or a call,
// followed by a type: an optional "*", then an identifier, maybe qualified, then ")".
func hasAssertion(l string) bool {
	for p := strings.Index(l, ".("); p >= 0; {
		if p > 0 && (isWordByte(l[p-1]) || l[p-1] == ')' || l[p-1] == ']') {
			q := p + 2
			if q < len(l) && l[q] == '*' {
				q++
			}
			s := q
			for q < len(l) && (isWordByte(l[q]) || l[q] == '.') {
				q++
			}
			if q > s && q < len(l) && l[q] == ')' && l[s] != '.' {
				return true
			}
		}
		n := strings.Index(l[p+2:], ".(")
		if n < 0 {
			break
		}
		p += 2 + n
	}
	return false
}
