package structural

import (
	"context"
	"regexp"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// unitRole says how a unit is scored.
type unitRole uint8

const (
	// roleDef is a definition or a multi-line statement: scored as one unit.
	roleDef unitRole = iota
	// roleChunk is a run of one-line statements between blank lines.
	roleChunk
	// roleContainer holds other units; its header and closing line follow its best member.
	roleContainer
	// roleImport is skeleton (package clause, imports).
	roleImport
)

// unit is a span of lines kept or cut as a whole: [start, end), 0-based, with its header
// (signature, decorators, doc comment) [start, bodyStart).
type unit struct {
	start, end int
	bodyStart  int
	name       string
	role       unitRole
	parent     int // index of the enclosing container, -1 at top level
	// blocks are the statements of a long definition's body ([start, end) pairs, in order),
	// split down to blockLines or less: scores vary by block, not by line, so a cut inside a
	// unit falls between statements and leaves one marker.
	blocks [][2]int
}

// blockLines is the size above which a definition (and then a statement) is split into
// the statements it holds.
const blockLines = 12

// outline is the units of a file in source order (a container before its members), and
// for a configuration file its entries (keys.go).
type outline struct {
	units []unit
	keys  []entry
}

// extractor walks a syntax tree down to the members of containers; definitions' bodies are
// not walked, which keeps the cgo traffic proportional to the number of declarations.
type extractor struct {
	l     *lang
	src   []byte
	lines []string
	out   *outline
	walkCheck
}

// walkCheck lets a tree walk look at the request's context as it goes: a walk costs about as
// much as the parse per node, so a file of hundreds of thousands of statements parsed just
// inside the deadline would otherwise be walked well past it. err is ctx's error once the walk
// has seen it.
type walkCheck struct {
	ctx   context.Context
	steps int
	err   error
}

// checkEvery is how many nodes a tree walk visits between looks at its context.
const checkEvery = 1024

// stop counts one node visited and reports whether the walk must end (ctx is done).
func (w *walkCheck) stop() bool {
	if w.steps++; w.err == nil && w.steps%checkEvery == 0 {
		w.err = w.ctx.Err()
	}
	return w.err != nil
}

var reRequire = regexp.MustCompile(`^\s*((const|let|var)\s+[\w{}, ]+\s*=\s*require\s*\(|require(_relative|_once)?[\s(]|include(_once)?[\s(])`)

// extractOutline returns the outline of a parsed file, or ctx's error when ctx ends first.
func extractOutline(ctx context.Context, l *lang, root *sitter.Node, src []byte, lines []string) (*outline, error) {
	e := &extractor{l: l, src: src, lines: lines, out: &outline{}, walkCheck: walkCheck{ctx: ctx}}
	e.members(root, -1, 0)
	if e.err == nil && l.keys {
		w := &keyWalk{lines: lines, walkCheck: e.walkCheck, types: map[sitter.Symbol]uint8{}}
		extractKeys(w, root)
		e.out.keys, e.err = w.out, w.err
	}
	if e.err != nil {
		return nil, e.err
	}
	return e.out, nil
}

func row(p sitter.Point) int { return int(p.Row) }

// span returns a node's lines [start, end): a node ending at column 0 ends on the line before.
func span(n *sitter.Node) (int, int) {
	s, e := n.StartPoint(), n.EndPoint()
	end := int(e.Row) + 1
	if e.Column == 0 && e.Row > s.Row {
		end = int(e.Row)
	}
	return int(s.Row), end
}

// members turns the named children of n (a file, a container body) that start at or after
// line from into units.
func (e *extractor) members(n *sitter.Node, parent, from int) {
	count := int(n.NamedChildCount())
	// The run of comments/attributes waiting for a definition: [pending, pendingLast].
	pending, pendingLast := -1, -1
	chunkStart, chunkEnd := -1, -1
	flush := func() {
		if chunkStart >= 0 {
			e.add(unit{start: chunkStart, end: chunkEnd, bodyStart: chunkStart, role: roleChunk, parent: parent})
		}
		chunkStart, chunkEnd = -1, -1
	}
	for i := 0; i < count && !e.stop(); i++ {
		c := n.NamedChild(i)
		if c == nil {
			continue
		}
		start, end := span(c)
		if start < from || end <= start {
			continue
		}
		r := e.l.role(c)
		if r == kindBody {
			flush()
			pending, pendingLast = -1, -1
			e.members(c, parent, from)
			continue
		}
		if r == kindComment || r == kindAttr {
			if pending < 0 || !e.adjacent(pendingLast, start) {
				pending = start
			}
			pendingLast = end - 1
			continue
		}
		lead := start
		if pending >= 0 && e.documents(pending, pendingLast, start) {
			lead = pending
		}
		multi := end-start > 1
		switch {
		case r == kindImport || (!multi && parent < 0 && reRequire.MatchString(e.lines[start])):
			flush()
			e.add(unit{start: lead, end: end, bodyStart: end, role: roleImport, parent: parent})
		case r == kindContainer || (r == kindSection && multi && parent < 0 && e.hasSections(c)) || (r == kindWrapper && e.innerRole(c) == kindContainer):
			flush()
			e.container(c, lead, start, end, parent)
		case r == kindDef || r == kindWrapper || multi:
			flush()
			u := unit{start: lead, end: end, bodyStart: e.bodyStart(c, start, end), name: e.nameOf(c, 4), role: roleDef, parent: parent}
			if end-start > blockLines {
				body := c
				if in := e.inner(c); in != nil {
					body = in
				}
				if b := body.ChildByFieldName("body"); b != nil {
					body = b
				}
				u.blocks = e.split(body, u.bodyStart, nil, 0)
			}
			e.add(u)
		default:
			// One-line statements: runs between blank lines become one chunk.
			if chunkStart >= 0 && !e.adjacent(chunkEnd-1, lead) {
				flush()
			}
			if chunkStart < 0 {
				chunkStart = lead
			}
			chunkEnd = end
		}
		pending, pendingLast = -1, -1
	}
	flush()
}

// adjacent reports whether line b follows line a with only blank-free lines between (a
// comment directly above a definition belongs to it; one separated by a blank does not).
func (e *extractor) adjacent(a, b int) bool {
	for i := a + 1; i < b; i++ {
		if strings.TrimSpace(e.lines[i]) == "" {
			return false
		}
	}
	return true
}

// documents reports whether the comment run [first, last] belongs to the definition that
// starts at line def: directly above it, or a doc block ("/**", the JSDoc, Javadoc, PHPDoc
// and Doxygen opener) one blank line above it, as Express and much JavaScript write them.
func (e *extractor) documents(first, last, def int) bool {
	if e.adjacent(last, def) {
		return true
	}
	return def == last+2 && strings.HasPrefix(strings.TrimSpace(e.lines[first]), "/**") &&
		strings.HasSuffix(strings.TrimSpace(e.lines[last]), "*/")
}

// hasSections reports whether a section holds multi-line sections (then it is a container
// of them; otherwise it is scored whole like a definition).
func (e *extractor) hasSections(n *sitter.Node) bool {
	for i := 0; i < int(n.NamedChildCount()) && !e.stop(); i++ {
		c := n.NamedChild(i)
		if c == nil {
			continue
		}
		s, t := span(c)
		switch e.l.role(c) {
		case kindSection:
			if t-s > 1 {
				return true
			}
		case kindBody:
			if e.hasSections(c) {
				return true
			}
		}
	}
	return false
}

// split appends the spans of n's named children that start at or after line from,
// descending into those longer than blockLines.
func (e *extractor) split(n *sitter.Node, from int, out [][2]int, depth int) [][2]int {
	for i := 0; i < int(n.NamedChildCount()) && !e.stop(); i++ {
		c := n.NamedChild(i)
		if c == nil {
			continue
		}
		s, t := span(c)
		if s < from || t <= s {
			continue
		}
		if t-s > blockLines && depth < 4 && c.NamedChildCount() > 0 {
			out = e.split(c, s, out, depth+1)
			continue
		}
		if len(out) > 0 && out[len(out)-1][1] > s {
			// Several statements on one line: merge with the previous span.
			out[len(out)-1][1] = max(out[len(out)-1][1], t)
			continue
		}
		out = append(out, [2]int{s, t})
	}
	return out
}

func (e *extractor) add(u unit) int {
	if u.bodyStart < u.start {
		u.bodyStart = u.start
	}
	if u.bodyStart > u.end {
		u.bodyStart = u.end
	}
	e.out.units = append(e.out.units, u)
	return len(e.out.units) - 1
}

// container adds a container unit and its members.
func (e *extractor) container(c *sitter.Node, lead, start, end, parent int) {
	inner := c
	if e.l.role(c) == kindWrapper {
		if d := e.inner(c); d != nil {
			inner = d
		}
	}
	body := e.bodyStart(inner, start, end)
	idx := e.add(unit{start: lead, end: end, bodyStart: body, name: e.nameOf(inner, 4), role: roleContainer, parent: parent})
	if b := inner.ChildByFieldName("body"); b != nil {
		e.members(b, idx, body)
		return
	}
	e.members(inner, idx, body)
}

// bodyStart is the first line after a definition's header: the line its body starts on,
// or the next line when the body opens on the header's own line.
func (e *extractor) bodyStart(n *sitter.Node, start, end int) int {
	if n2 := e.inner(n); n2 != nil {
		n = n2
	}
	b := n.ChildByFieldName("body")
	if b == nil {
		// Markdown sections, YAML pairs: the first child (heading, key) is the header.
		if first := n.NamedChild(0); first != nil {
			_, fe := span(first)
			if fe > start && fe < end {
				return fe
			}
		}
		return min(start+1, end)
	}
	bs := row(b.StartPoint())
	if bs <= start {
		return min(start+1, end)
	}
	return bs
}

// innerRole is the role of the definition a wrapper holds.
func (e *extractor) innerRole(n *sitter.Node) kind {
	if d := e.inner(n); d != nil {
		return e.l.role(d)
	}
	return kindNone
}

// inner returns the definition inside a wrapper (export, decorators, template), or nil.
func (e *extractor) inner(n *sitter.Node) *sitter.Node {
	if e.l.role(n) != kindWrapper {
		return nil
	}
	for depth := 0; depth < 3; depth++ {
		var next *sitter.Node
		for i := 0; i < int(n.NamedChildCount()); i++ {
			c := n.NamedChild(i)
			switch e.l.role(c) {
			case kindDef, kindContainer:
				return c
			case kindWrapper:
				next = c
			}
		}
		if next == nil {
			return nil
		}
		n = next
	}
	return nil
}

// nameFields are the fields that lead to a declaration's name, most specific first.
var nameFields = []string{"name", "heading_content", "declarator", "left", "property", "key", "type", "declaration", "definition", "function"}

// nameOf finds the declared name of a node: its name field, or the name down a declarator,
// assignment target or first child, within depth steps.
func (e *extractor) nameOf(n *sitter.Node, depth int) string {
	if n == nil || depth < 0 {
		return ""
	}
	if in := e.inner(n); in != nil {
		n = in
	}
	if name := e.callName(n); name != "" {
		return name
	}
	if isNameType(n.Type()) {
		return e.text(n)
	}
	for _, f := range nameFields {
		if c := n.ChildByFieldName(f); c != nil {
			if name := e.nameOf(c, depth-1); name != "" {
				return name
			}
		}
	}
	if n.NamedChildCount() > 0 {
		return e.nameOf(n.NamedChild(0), depth-1)
	}
	return ""
}

// reIdentString is a string literal holding one identifier ('host', "protocol").
var reIdentString = regexp.MustCompile(`^["'][A-Za-z_$][A-Za-z0-9_$]*["']$`)

// callName names a top-level call that defines something through its arguments, as
// JavaScript does with defineGetter(req, 'host', function host() {…}),
// Object.defineProperty(obj, 'x', {…}) or req.__defineGetter__('protocol', function () {…}):
// the name of a function expression argument, else an identifier-like string argument.
// The callee (defineGetter) says how, not what. Other nodes: "".
func (e *extractor) callName(n *sitter.Node) string {
	if n.Type() == "expression_statement" && n.NamedChildCount() == 1 {
		n = n.NamedChild(0)
	}
	if n.Type() != "call_expression" {
		return ""
	}
	args := n.ChildByFieldName("arguments")
	if args == nil {
		return ""
	}
	str := ""
	for i := 0; i < int(args.NamedChildCount()); i++ {
		a := args.NamedChild(i)
		switch a.Type() {
		case "function", "function_expression":
			if name := a.ChildByFieldName("name"); name != nil {
				return e.text(name)
			}
		case "string":
			if t := e.text(a); str == "" && reIdentString.MatchString(t) {
				str = t[1 : len(t)-1]
			}
		}
	}
	return str
}

func isNameType(t string) bool {
	return strings.HasSuffix(t, "identifier") || t == "name" || t == "constant" || t == "word" ||
		t == "operator_name" || t == "destructor_name" || t == "bare_key" || t == "plain_scalar" ||
		t == "string_scalar" || t == "inline" || t == "dotted_key" || t == "double_quote_scalar"
}

// text is a node's source, bounded so a pathological name cannot cost much.
func (e *extractor) text(n *sitter.Node) string {
	s, t := n.StartByte(), n.EndByte()
	if int(t) > len(e.src) || s >= t {
		return ""
	}
	if t-s > 200 {
		t = s + 200
	}
	return string(e.src[s:t])
}
