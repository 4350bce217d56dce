package structural

import (
	"cmp"
	"container/heap"
	"slices"
	"strings"
)

// Long files are parsed in windows. Tree-sitter's parse is most of the scorer's cost and
// grows with the file (about 6 µs a line on the reference machine, 60 ms for 10,000 lines),
// while what the structure adds is the shape of the few regions the goal is about. Past
// parseLines, only windows around the heuristic's best lines (and the file's head, for the
// skeleton) are parsed; the rest scores by the heuristic alone.
const (
	// parseLines is the most lines parsed per request: whole files up to it, windows past it.
	parseLines = 2500
	// windowRadius is how far a window reaches on each side of its anchor line before it
	// is aligned to declaration boundaries.
	windowRadius = 100
	// headLines is the window kept at the top of a long file (package, imports).
	headLines = 60
	// alignReach bounds the search for a declaration boundary beyond a window's edge: far
	// enough to find the header of a long method from a line deep in its body.
	alignReach = 400
)

// window is a run of lines [start, end) parsed on its own.
type window struct{ start, end int }

// chooseWindows picks the regions of a long file to parse: the head, then windows around
// the best-scored lines (h: the heuristic's scores) until about budget lines are covered.
// Windows are aligned to declaration boundaries and merged; they come in file order. keys
// makes a mapping key that opens a block ("cloudkms:") a declaration (YAML).
func chooseWindows(lines []string, h []float64, budget int, keys bool) []window {
	n := len(lines)
	covered := make([]bool, n)
	var ws []window
	total := 0
	add := func(w window) {
		ws = append(ws, w)
		for i := w.start; i < w.end; i++ {
			if !covered[i] {
				covered[i] = true
				total++
			}
		}
	}
	add(alignWindow(lines, 0, min(n, headLines), keys))
	// Anchors best first, equal scores in file order, so the choice is deterministic. A heap
	// hands out only the few hundred the budget takes: sorting all the scored lines was a
	// sixth of scoring a 10,000-line file whose outline is cached.
	q := anchorQueue{h: h, idx: make([]int, 0, n)}
	for i, v := range h {
		if v > 0 {
			q.idx = append(q.idx, i)
		}
	}
	q.init()
	for len(q.idx) > 0 {
		if total >= budget {
			break
		}
		a := q.pop()
		if covered[a] {
			continue
		}
		w := alignWindow(lines, max(0, a-windowRadius), min(n, a+windowRadius+1), keys)
		// However far alignment reached, a window stays bounded (it still holds the anchor
		// and the radius after it), so the parse's cost is.
		w.end = min(w.end, w.start+2*windowRadius+alignReach+1)
		if keys && (a < w.start || a >= w.end) {
			// Alignment found no key as shallow as the anchor and cut the window at
			// shallower lines before it: the anchor's window is parsed as it is. Only in
			// data files: in code such a window parsed from inside a block reads worse than
			// none (code.dev at 20% and 30% of tokens 0.730 / 0.779 -> 0.727 / 0.775).
			w = window{max(0, a-windowRadius), min(n, a+windowRadius+1)}
		}
		add(w)
	}
	slices.SortFunc(ws, func(a, b window) int { return cmp.Compare(a.start, b.start) })
	merged := ws[:0]
	for _, w := range ws {
		if k := len(merged) - 1; k >= 0 && w.start <= merged[k].end {
			merged[k].end = max(merged[k].end, w.end)
			continue
		}
		merged = append(merged, w)
	}
	return merged
}

// anchorQueue is a heap (container/heap) of line indices, the best score h first and equal
// scores in file order.
type anchorQueue struct {
	h   []float64
	idx []int
}

func (q *anchorQueue) Len() int { return len(q.idx) }

func (q *anchorQueue) Less(i, j int) bool {
	a, b := q.idx[i], q.idx[j]
	return q.h[a] > q.h[b] || q.h[a] == q.h[b] && a < b
}

func (q *anchorQueue) Swap(i, j int) { q.idx[i], q.idx[j] = q.idx[j], q.idx[i] }

func (q *anchorQueue) Push(x any) { q.idx = append(q.idx, x.(int)) }

func (q *anchorQueue) Pop() any {
	last := q.idx[len(q.idx)-1]
	q.idx = q.idx[:len(q.idx)-1]
	return last
}

func (q *anchorQueue) init() { heap.Init(q) }

// pop removes and returns the first line; the queue must not be empty.
func (q *anchorQueue) pop() int { return heap.Pop(q).(int) }

// alignWindow moves [start, end) to declaration boundaries: start up to the nearest
// declaration header no deeper than the code it then covers, end on to the next header. Each search goes at most alignReach lines; past that the edge stays
// (the parse then sees a partial declaration, which its error share bounds). A window that
// reaches shallower code than its first line is cut there, so a parse never starts inside
// a block it leaves.
func alignWindow(lines []string, start, end int, keys bool) window {
	decl := func(l string) bool { return isDecl(l) || keys && (isKeyBlock(l) || opensEntry(l)) }
	n := len(lines)
	if start > 0 {
		shallowest := -1
		if keys {
			// A data file's window starts at a key no deeper than any line it covers: one
			// that started at an indented key ended at the next top-level key, its anchor
			// often, as the cut below requires.
			for i := start; i < end; i++ {
				if !isBlank(lines[i]) && (shallowest < 0 || indentOf(lines[i]) < shallowest) {
					shallowest = indentOf(lines[i])
				}
			}
		}
		for i := start; i >= 0 && start-i <= alignReach; i-- {
			if isBlank(lines[i]) {
				continue
			}
			d := indentOf(lines[i])
			if (shallowest < 0 || d <= shallowest) && decl(lines[i]) {
				start = i
				break
			}
			if shallowest < 0 || d < shallowest {
				shallowest = d
			}
		}
	}
	base := indentOf(lines[start])
	// End before the next declaration as shallow as the start; failing that, before any
	// declaration (between two methods of a class: the class is cut short, which an
	// indentation grammar accepts and a bracketed one reports as one missing brace).
	nearest := -1
	for e := end; e < n && e-end <= alignReach; e++ {
		if isBlank(lines[e]) || !decl(lines[e]) {
			continue
		}
		if nearest < 0 {
			nearest = e
		}
		if indentOf(lines[e]) <= base {
			nearest = e
			break
		}
	}
	if nearest >= 0 {
		end = nearest
	}
	end = min(end, n)
	for i := start + 1; i < end; i++ {
		if !isBlank(lines[i]) && indentOf(lines[i]) < base {
			end = i
			break
		}
	}
	return window{start, max(end, start+1)}
}

// isDecl reports whether l opens a declaration in the languages the scorer parses: it starts
// with a keyword that opens a definition, or is an attribute or decorator line. A keyword
// check, not a regular expression: windows search hundreds of lines each.
func isDecl(l string) bool {
	t := strings.TrimLeft(l, " \t")
	if strings.HasPrefix(t, "@") || strings.HasPrefix(t, "#[") {
		return true
	}
	for range 4 { // export default async function ...
		k := 0
		for k < len(t) && (t[k] >= 'a' && t[k] <= 'z') {
			k++
		}
		w := t[:k]
		if k == len(t) || (t[k] != ' ' && t[k] != '\t' && t[k] != '(' && t[k] != '<' && t[k] != '{') {
			return false
		}
		switch w {
		case "export", "default", "async", "abstract", "final", "sealed", "open", "override", "inline", "unsafe", "extern":
			t = strings.TrimLeft(t[k:], " \t")
			continue
		}
		return isDeclKeyword(w)
	}
	return false
}

func isDeclKeyword(w string) bool {
	switch w {
	case "def", "class", "func", "fn", "function", "impl", "trait", "struct", "enum", "interface",
		"type", "module", "namespace", "package", "public", "private", "protected", "internal",
		"static", "pub", "const", "let", "var", "val", "sub", "template", "union", "typedef", "mod":
		return true
	}
	return false
}

func isBlank(l string) bool { return strings.TrimSpace(l) == "" }

// isKeyBlock reports whether l is a YAML mapping key that opens a block: a key and a colon
// with nothing after it ("cloudkms:", "  projects.locations:").
func isKeyBlock(l string) bool {
	t := strings.TrimRight(strings.TrimLeft(l, " \t"), " \t\r")
	if len(t) < 2 || t[len(t)-1] != ':' || t[0] == '-' || t[0] == '#' {
		return false
	}
	return !strings.ContainsAny(t[:len(t)-1], " :\t\"'{[")
}

// opensEntry reports whether l opens a configuration entry that is no mapping key: a YAML
// sequence item ("  - name: web"), a TOML table header ("[tool.ruff]", "[[bin]]"), or a
// JSON member or element whose value opens on it ("\"left-pad\": {", "{"). A long
// list of items (a values file's services, a lock file's packages) has no key to align a
// window to but these: a window begun inside an item, deeper than the items after it,
// was cut before them, and its anchor parsed as it was, mostly errors.
func opensEntry(l string) bool {
	t := strings.TrimRight(strings.TrimLeft(l, " \t"), " \t\r")
	switch {
	case t == "":
		return false
	case t == "-" || strings.HasPrefix(t, "- "):
		return true
	case t[0] == '[':
		return t[len(t)-1] == ']'
	}
	return t[len(t)-1] == '{' || t[len(t)-1] == '['
}

// indentOf is the number of leading space and tab bytes.
func indentOf(l string) int {
	return len(l) - len(strings.TrimLeft(l, " \t"))
}

// dedent removes the indentation common to the non-blank lines, so a window cut from
// inside a class parses as top-level code (Python's grammar rejects an indented start).
func dedent(lines []string) []string {
	common := -1
	for _, l := range lines {
		if isBlank(l) {
			continue
		}
		if d := indentOf(l); common < 0 || d < common {
			common = d
		}
	}
	if common <= 0 {
		return lines
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) >= common && strings.TrimLeft(l[:common], " \t") == "" {
			out[i] = l[common:]
		} else {
			out[i] = strings.TrimLeft(l, " \t")
		}
	}
	return out
}

// shift moves o's units and entries down by off lines and their parent indexes by base
// units and baseKeys entries, so windows' outlines concatenate into one for the whole file.
func (o *outline) shift(off, base, baseKeys int) {
	for k := range o.keys {
		e := &o.keys[k]
		e.start += int32(off)
		e.end += int32(off)
		if e.parent >= 0 {
			e.parent += int32(baseKeys)
		}
		for j, id := range e.ids {
			if id >= 0 {
				e.ids[j] = id + int32(off)
			}
		}
	}
	for k := range o.units {
		u := &o.units[k]
		u.start += off
		u.end += off
		u.bodyStart += off
		if u.parent >= 0 {
			u.parent += base
		}
		for b := range u.blocks {
			u.blocks[b][0] += off
			u.blocks[b][1] += off
		}
	}
}

// wrapJSON makes a window cut from inside a JSON document parse: its members
// ("\"left-pad\": {" ... "},") are a YAML block of syntax errors, one at each comma, but
// inside braces they are a flow mapping (and elements inside brackets a flow sequence),
// whose trailing comma YAML accepts. The opener goes before the first non-blank line and the
// closer after the last, so no line moves. Other windows come back as they are.
func wrapJSON(lines []string) []string {
	first, last := -1, -1
	for i, l := range lines {
		if !isBlank(l) {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return lines
	}
	open, close := "{", "}"
	switch t := strings.TrimLeft(lines[first], " \t"); {
	case strings.HasPrefix(t, "{") || strings.HasPrefix(t, "["):
		// Elements; the document's own opener, at the head, wrapped so is no worse.
		open, close = "[", "]"
	case !strings.HasPrefix(t, `"`):
		return lines
	}
	out := slices.Clone(lines)
	out[first] = open + out[first]
	out[last] += close
	return out
}
