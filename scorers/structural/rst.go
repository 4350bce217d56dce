package structural

import (
	"regexp"
	"strings"
)

// reStructuredText has no tree-sitter grammar here; its structure is read from section
// adornments (a title underlined, optionally overlined, by one repeated punctuation
// character) and explicit markup (".. name:: args" with an indented body).

var (
	reRSTDirective = regexp.MustCompile(`^(\s*)\.\.\s+([\w:.-]+)::\s*(.*)$`)
)

type rstParser struct {
	lines  []string
	out    *outline
	levels []byte // adornment characters in order of first use: their index is the level
}

func rstOutline(lines []string) *outline {
	p := &rstParser{lines: lines, out: &outline{}}
	type title struct{ start, bodyStart, level int }
	var titles []title
	for i := 0; i+1 < len(lines); i++ {
		if start, body, ch, ok := p.title(i); ok {
			titles = append(titles, title{start, body, p.level(ch)})
			i = body - 1
		}
	}
	// Sections nest by level; each ends where a title of the same or a higher level begins.
	type open struct{ unit, level int }
	var stack []open
	prev := 0
	closeTo := func(level, at int) {
		for len(stack) > 0 && stack[len(stack)-1].level >= level {
			p.out.units[stack[len(stack)-1].unit].end = at
			stack = stack[:len(stack)-1]
		}
	}
	parentOf := func() int {
		if len(stack) == 0 {
			return -1
		}
		return stack[len(stack)-1].unit
	}
	for _, t := range titles {
		p.block(prev, t.start, 0, parentOf())
		closeTo(t.level, t.start)
		idx := p.add(unit{start: t.start, end: len(lines), bodyStart: t.bodyStart, name: strings.TrimSpace(lines[t.bodyStart-2]), role: roleContainer, parent: parentOf()})
		stack = append(stack, open{idx, t.level})
		prev = t.bodyStart
	}
	p.block(prev, len(lines), 0, parentOf())
	closeTo(0, len(lines))
	return p.out
}

func (p *rstParser) add(u unit) int {
	p.out.units = append(p.out.units, u)
	return len(p.out.units) - 1
}

func (p *rstParser) level(ch byte) int {
	for i, c := range p.levels {
		if c == ch {
			return i
		}
	}
	p.levels = append(p.levels, ch)
	return len(p.levels) - 1
}

// title recognises a section title at line i: "Title" + underline, or overline + "Title" +
// underline. It returns the title's first line, the line after its adornment, and the
// adornment character.
func (p *rstParser) title(i int) (start, bodyStart int, ch byte, ok bool) {
	l := p.lines
	if isAdornment(l[i]) && i+2 < len(l) && isTitleText(l[i+1]) &&
		strings.TrimSpace(l[i+2]) == strings.TrimSpace(l[i]) {
		return i, i + 3, strings.TrimSpace(l[i])[0], true
	}
	if isTitleText(l[i]) && !startsIndented(l[i]) && isAdornment(l[i+1]) &&
		len(strings.TrimSpace(l[i+1])) >= len(strings.TrimSpace(l[i]))*2/3 && (i == 0 || strings.TrimSpace(l[i-1]) == "") {
		return i, i + 2, strings.TrimSpace(l[i+1])[0], true
	}
	return 0, 0, 0, false
}

// isAdornment reports a line of 3+ copies of one punctuation character.
func isAdornment(s string) bool {
	t := strings.TrimRight(s, " \t")
	if len(t) < 3 || !strings.ContainsRune(adornmentChars, rune(t[0])) {
		return false
	}
	for i := 1; i < len(t); i++ {
		if t[i] != t[0] {
			return false
		}
	}
	return true
}

const adornmentChars = "=-~^\"'`#*+:.<>_!$%&,;?@|/\\"

func isTitleText(s string) bool {
	t := strings.TrimSpace(s)
	return t != "" && len(t) < 200 && !isAdornment(s)
}

func startsIndented(s string) bool { return s != "" && (s[0] == ' ' || s[0] == '\t') }

func indentWidth(s string) int {
	w := 0
	for _, c := range []byte(s) {
		switch c {
		case ' ':
			w++
		case '\t':
			w += 8
		default:
			return w
		}
	}
	return w
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }

// block adds the directives and paragraphs of lines [lo, hi) whose indentation is at
// least ind.
func (p *rstParser) block(lo, hi, ind, parent int) {
	l := p.lines
	for i := lo; i < hi; {
		if blank(l[i]) {
			i++
			continue
		}
		if m := reRSTDirective.FindStringSubmatch(l[i]); m != nil {
			d := indentWidth(l[i])
			end := i + 1
			for j := i + 1; j < hi; j++ {
				if !blank(l[j]) {
					if indentWidth(l[j]) <= d {
						break
					}
					end = j + 1
				}
			}
			// The header is the directive with its continued signatures and options, up to
			// the first blank line.
			body := i + 1
			for body < end && !blank(l[body]) {
				body++
			}
			u := unit{start: i, end: end, bodyStart: body, name: directiveName(m[3]), role: roleDef, parent: parent}
			if p.hasDirective(body, end) {
				u.role = roleContainer
				idx := p.add(u)
				p.block(body, end, d+1, idx)
			} else {
				p.add(u)
			}
			i = end
			continue
		}
		// A paragraph (or list, or literal block) runs to the next blank line.
		j := i + 1
		for j < hi && !blank(l[j]) && reRSTDirective.FindStringIndex(l[j]) == nil {
			j++
		}
		p.add(unit{start: i, end: j, bodyStart: i, role: roleChunk, parent: parent})
		i = j
	}
}

func (p *rstParser) hasDirective(lo, hi int) bool {
	for i := lo; i < hi; i++ {
		if strings.HasPrefix(strings.TrimSpace(p.lines[i]), "..") && reRSTDirective.MatchString(p.lines[i]) {
			return true
		}
	}
	return false
}

// directiveName is the documented object's name: "json.dumps(obj, *, ...)" -> "json.dumps".
func directiveName(args string) string {
	if k := strings.IndexAny(args, "( "); k >= 0 {
		args = args[:k]
	}
	return args
}
