package engine

import (
	"strconv"
	"strings"
	"unicode"
)

// AnnotationKind is the kind of every annotation the engine emits.
const AnnotationKind = "pruned_block"

// Marker returns the canonical one-line marker of seed §6.2.
func Marker(pruneID string, start, end int, reason string) string {
	return "⟦PRUNÉ: prune_id=" + pruneID + " lignes " + strconv.Itoa(start) + "-" + strconv.Itoa(end) +
		" (" + strconv.Itoa(end-start+1) + ") raison=" + reason + "⟧"
}

// Reasons of cut runs (short, French, and true of the run they describe).
const (
	reasonOffFocus   = "hors focus"
	reasonBudget     = "budget de tokens"
	reasonLowScore   = "pertinence faible"
	maxReasonTermLen = 40
)

// sanitizeTerm keeps a focus term printable inside a one-line marker: no control characters
// (NEL among them), no line or paragraph separators, which break the marker's line for
// Python's splitlines and for editors, no format characters (bidi overrides reverse the rest
// of the marker on screen; zero-width ones hide), and no brackets of the marker itself.
func sanitizeTerm(t string) string {
	t = strings.Map(func(r rune) rune {
		if r == '⟧' || r == '⟦' || invisible(r) || lineBreak(r) {
			return -1
		}
		return r
	}, t)
	if r := []rune(t); len(r) > maxReasonTermLen {
		t = string(r[:maxReasonTermLen])
	}
	return strings.TrimSpace(t)
}

// sanitizeWarning keeps a scorer's warning on one visible line, as sanitizeTerm a focus term,
// with the line breaks and tabs it held as spaces.
func sanitizeWarning(w string) string {
	w = strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || lineBreak(r):
			return ' '
		case invisible(r):
			return -1
		}
		return r
	}, w)
	return strings.TrimSpace(w)
}

// lineBreak reports whether r is \n, \r or a line or paragraph separator.
func lineBreak(r rune) bool {
	return r == '\n' || r == '\r' || unicode.In(r, unicode.Zl, unicode.Zp)
}

// invisible reports whether r prints nothing of its own: a control character (NEL among
// them) or a format character (bidi overrides, zero-width spaces).
func invisible(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
}

// runReason explains why lines [start, end) were cut. It names the first focus term the run
// does not contain (case-insensitively); if the run mentions every focus term, it was cut for
// the budget or for scoring below the threshold.
func runReason(lines []string, start, end int, focus []string, scores []float64, threshold float64) string {
	for _, term := range focus {
		found := false
		for i := start; i < end && !found; i++ {
			found = containsFold(lines[i], term)
		}
		if !found {
			return reasonOffFocus + ": " + term
		}
	}
	if len(focus) == 0 {
		return reasonOffFocus
	}
	for i := start; i < end; i++ {
		if scores[i] >= threshold {
			return reasonBudget
		}
	}
	return reasonLowScore
}

// rendered is the output text with its annotations.
type rendered struct {
	text        string
	annotations []Annotation
	kept        []int
	// lines are the output's lines when they are numbered (Options.AnnotateLines), in order.
	lines []outLine
}

// outLine is a line of a numbered output: text[start:end], without its line break, and the
// original line it shows (0-based), or for a marker -1-k, k being its annotation's index.
type outLine struct {
	start, end, src int
}

func render(ls lineSet, keep []bool, pruneID string, o Options, reasons func(start, end int) string) rendered {
	n := len(ls.raw)
	// Size the output once: the kept lines with their prefixes and breaks, and a marker's
	// worth for each cut run (a 10,000-line answer would otherwise grow and copy it ~20 times).
	size, runs, kept := 0, 0, 0
	for i := 0; i < n; i++ {
		if keep[i] {
			kept++
			size += len(ls.raw[i]) + 1
			if o.AnnotateLines {
				size += 12
			}
		} else if i == 0 || keep[i-1] {
			runs++
		}
	}
	if o.IncludeMarkers {
		size += runs * 128
	}
	var b strings.Builder
	b.Grow(size)
	var prefix []byte
	out := rendered{annotations: make([]Annotation, 0, runs), kept: make([]int, 0, kept)}
	if o.AnnotateLines {
		out.lines = make([]outLine, 0, kept+runs)
	}
	first := true
	emit := func(s string) {
		if !first {
			b.WriteByte('\n')
		}
		first = false
		b.WriteString(s)
	}
	for i := 0; i < n; {
		if keep[i] {
			out.kept = append(out.kept, i+1)
			if o.AnnotateLines {
				if !first {
					b.WriteByte('\n')
				}
				first = false
				start := b.Len()
				prefix = appendLinePrefix(prefix[:0], i+1)
				b.Write(prefix)
				b.WriteString(ls.raw[i])
				out.lines = append(out.lines, outLine{start: start, end: b.Len(), src: i})
			} else {
				emit(ls.raw[i])
			}
			i++
			continue
		}
		j := i
		for j < n && !keep[j] {
			j++
		}
		reason := reasons(i, j)
		m := Marker(pruneID, i+1, j, reason)
		out.annotations = append(out.annotations, Annotation{
			Kind: AnnotationKind, OriginalStartLine: i + 1, OriginalEndLine: j,
			PrunedLineCount: j - i, Reason: reason, Marker: m,
		})
		if o.IncludeMarkers {
			// The marker takes the line ending of the last line it stands for, so a CRLF
			// text stays CRLF throughout (the annotation's Marker has no "\r").
			line := m
			if strings.HasSuffix(ls.raw[j-1], "\r") {
				line = m + "\r"
			}
			emit(line)
			if o.AnnotateLines {
				out.lines = append(out.lines, outLine{start: b.Len() - len(line), end: b.Len(), src: -len(out.annotations)})
			}
		}
		i = j
	}
	if ls.trailingNewline && !first {
		b.WriteByte('\n')
	}
	out.text = b.String()
	return out
}

// containsFold reports whether s contains sub, ignoring case, without allocating for ASCII.
// For an ASCII sub it is an ASCII case-insensitive search: the starts of sub's first byte,
// in either case, are found with IndexByte (each part of s scanned once per case) and only
// there is the rest compared. runReason asks it of every line a marker stands for.
func containsFold(s, sub string) bool {
	if sub == "" {
		return true
	}
	for i := 0; i < len(sub); i++ {
		if sub[i] >= 0x80 {
			return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
		}
	}
	last := len(s) - len(sub) // the last start at which sub fits
	if last < 0 {
		return false
	}
	// next returns the first index of c in s from on, among the starts, or len(s).
	next := func(c byte, from int) int {
		if k := strings.IndexByte(s[from:last+1], c); k >= 0 {
			return from + k
		}
		return len(s)
	}
	lower, upper := sub[0], sub[0]
	if c := sub[0] | 0x20; c >= 'a' && c <= 'z' {
		lower, upper = c, c-('a'-'A')
	}
	atLower, atUpper := next(lower, 0), len(s)
	if upper != lower {
		atUpper = next(upper, 0)
	}
	for {
		i := min(atLower, atUpper)
		if i > last {
			return false
		}
		if asciiEqualFold(s[i+1:i+len(sub)], sub[1:]) {
			return true
		}
		if i == atLower {
			atLower = next(lower, i+1)
		} else {
			atUpper = next(upper, i+1)
		}
	}
}

// asciiEqualFold reports whether a equals the ASCII string b (of a's length) with ASCII
// letters compared without case: any other byte of a, non-ASCII ones included, must equal b's.
func asciiEqualFold(a, b string) bool {
	for k := 0; k < len(b); k++ {
		if x, y := a[k], b[k]; x != y {
			if l := x | 0x20; l != y|0x20 || l < 'a' || l > 'z' {
				return false
			}
		}
	}
	return true
}
