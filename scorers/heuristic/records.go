package heuristic

import (
	"strconv"
	"strings"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// Records that are not build logs, whatever source type they come as (engine.GitLog,
// engine.UnifiedDiff): a git log's commits and a diff's files and hunks, each kept line
// read with the header that says where it is.

// liftCommitHeads gives a git log's commit headers (the "commit" line and the Author, Merge
// and Date lines under it, up to the first blank line) the best score of their commit's
// other lines: a message or a file list the goal matches is of little use without the
// commit that holds it, and the header is a few cheap lines.
func liftCommitHeads(lines []string, s []float64) {
	n := len(lines)
	for h := 0; h < n; {
		if !strings.HasPrefix(lines[h], "commit ") {
			h++
			continue
		}
		end := h + 1
		for end < n && !strings.HasPrefix(lines[end], "commit ") {
			end++
		}
		head := h + 1
		for head < end && strings.TrimSpace(lines[head]) != "" {
			head++
		}
		best := 0.0
		for i := head; i < end; i++ {
			best = max(best, s[i])
		}
		for i := h; i < head; i++ {
			s[i] = max(s[i], best)
		}
		h = end
	}
}

// diffBody marks the lines of a unified diff's hunks: after each "@@ -a,b +c,d @@", the b
// old and d new lines it announces (context counts as both; "\ No newline" notes go along).
// Counting them tells a removed "--- x" line from the next file's header.
func diffBody(lines []string) []bool {
	body := make([]bool, len(lines))
	old, new := 0, 0
	for i, l := range lines {
		if strings.HasPrefix(l, "\\") && i > 0 && body[i-1] {
			body[i] = true // "\ No newline at end of file", after the line it is about
			continue
		}
		if old > 0 || new > 0 {
			switch {
			case strings.HasPrefix(l, "-") && old > 0:
				old--
				body[i] = true
				continue
			case strings.HasPrefix(l, "+") && new > 0:
				new--
				body[i] = true
				continue
			case (l == "" || l[0] == ' ' || l == "\r") && old > 0 && new > 0:
				old, new = old-1, new-1
				body[i] = true
				continue
			}
			old, new = 0, 0
		}
		if engine.HunkHeader(l) {
			old, new = hunkSpan(l)
		}
	}
	return body
}

// hunkSpan reads the line counts b and d of a hunk header "@@ -a[,b] +c[,d] @@" (1 when
// omitted).
func hunkSpan(l string) (old, new int) {
	rest := strings.TrimPrefix(l, "@@ -")
	rest = rest[:strings.Index(rest, " @@")]
	o, n, _ := strings.Cut(rest, " +")
	count := func(r string) int {
		_, c, ok := strings.Cut(r, ",")
		if !ok {
			return 1
		}
		v, err := strconv.Atoi(c)
		if err != nil {
			return 0
		}
		return v
	}
	return count(o), count(n)
}

// withoutDiffColumn is lines with each hunk line's first column (+, - or space) made a
// space, so a hunk's lines indent as the file's do.
func withoutDiffColumn(lines []string, body []bool) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		if body[i] && l != "" && l[0] != '\\' {
			out[i] = " " + l[1:]
		} else {
			out[i] = l
		}
	}
	return out
}

// diffHead is a file's and a hunk's header's score over their best line's: a little more, so
// that a budget that buys the line buys the header first (it is one line, and the line is
// not worth much without it).
const diffHead = 1.1

// diffContext is the share of its score a diff's context line keeps: it is there to place
// the changes, which are what a reader of a diff looks for.
const diffContext = 0.8

// liftDiffHeads scales a diff's context lines by diffContext and gives the line that names
// each file ("diff --git a/x b/x", "--- x", "Index: x") and each hunk's "@@" line the best
// score of the hunk lines under them: a kept change is read against its file and place.
func liftDiffHeads(lines []string, body []bool, s []float64) {
	n := len(lines)
	for i, l := range lines {
		if body[i] && (l == "" || l[0] == ' ') {
			s[i] *= diffContext
		}
	}
	// A file's section starts at "diff ", "Index: " or a commit, or at "--- " after a hunk or
	// a blank line (diff -u of several files; after "diff --git …" it is the same header).
	startsFile := func(i int) bool {
		l := lines[i]
		switch {
		case body[i]:
			return false
		case strings.HasPrefix(l, "diff "), strings.HasPrefix(l, "Index: "), strings.HasPrefix(l, "commit "):
			return true
		case strings.HasPrefix(l, "--- "):
			return i == 0 || body[i-1] || strings.TrimSpace(lines[i-1]) == ""
		}
		return false
	}
	for h := 0; h < n; {
		if !startsFile(h) {
			h++
			continue
		}
		end := h + 1
		for end < n && !startsFile(end) {
			end++
		}
		best, head := 0.0, end
		for i := h; i < end; i++ {
			if !body[i] && engine.HunkHeader(lines[i]) {
				head = min(head, i)
				hunk := 0.0
				for j := i + 1; j < end && body[j]; j++ {
					hunk = max(hunk, s[j])
				}
				s[i] = max(s[i], min(1, hunk*diffHead))
				best = max(best, hunk)
			}
		}
		// The section's first line names the file ("diff --git a/x b/x", "--- x"); the rest of
		// the header (index, modes, "+++") says little more.
		if head > h && !strings.HasPrefix(lines[h], "commit ") {
			s[h] = max(s[h], min(1, best*diffHead))
		}
		h = end
	}
}
