package heuristic

import (
	"regexp"
	"strings"
)

// A goal that reports a dead or moved link ("chore: fix dead link", "Update homepage URL",
// "fix broken links in docs") names the page, not the line: the line to change is the one
// that holds a URL.
//
// Evidence is thin: one commits.dev goal ("chore: fix dead link", the URL in a comment, 0 → 1
// at 10, 20 and 30% of tokens, structural and heuristic), one Debian goal ("Fix links to
// cargo-doc", which does not move); code.dev, docs.dev and logs.dev unchanged (RESULTS.md,
// forty-third round).

// reLinkIntent matches a goal's first line about a dead, broken or outdated link or URL; not
// "linking" or "link against", which are the linker's.
var reLinkIntent = regexp.MustCompile(`(?i)\b(dead|broken|stale|outdated|old|wrong|invalid|incorrect|bad|moved|obsolete|fix(e[sd])?|update[sd]?|correct(s|ed)?)\s+(the\s+)?(\w+\s+)?(links?|urls?|hyperlinks?)\b|\b(links?|urls?)\s+((is|are|was|were)\s+)?(dead|broken|outdated|moved|obsolete)\b`)

// reLinkerGoal matches a first line about the linker's link step ("Fix link error with
// gcc-10", "fix link failure on armel"), which reLinkIntent's "fix … link" would take for a
// dead link: the URLs in such a file are its licence header, not the fix.
var reLinkerGoal = regexp.MustCompile(`(?i)\blink(age|ing|er)?[\s-]+(time\s+)?(errors?|failures?|fails?|failed|issues?|problems?)\b|undefined reference`)

// reURLHandling matches a first line about what the code does with URLs it is given ("Fix
// handling of invalid empty URLs", "reject invalid URLs", "parse URLs with a port"): the
// fix is in the parser or the validator, and the URLs written in the file (a licence
// header, a doc link) are not it.
var reURLHandling = regexp.MustCompile(`(?i)\b(handl(e|es|ed|ing)|pars(e|es|ed|er|ing)|validat\w*|accept\w*|reject\w*|allow\w*|normali[sz]\w*|encod\w*|decod\w*|escap\w*|resolv\w*|match(es|ed|ing)?)\b`)

// AboutLinks reports whether the goal's first line is about a dead, broken or outdated link.
func AboutLinks(goal string) bool {
	return titleMatches(reLinkIntent, goal) && !titleMatches(reLinkerGoal, goal) && !titleMatches(reURLHandling, goal)
}

// urlLines returns, in order, the lines that hold a URL.
func urlLines(lines []string) []int {
	var out []int
	for i, l := range lines {
		if strings.Contains(l, "://") && (strings.Contains(l, "http://") || strings.Contains(l, "https://") || strings.Contains(l, "ftp://")) {
			out = append(out, i)
		}
	}
	return out
}
