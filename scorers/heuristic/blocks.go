package heuristic

import "github.com/mcp-pruner/mcp-pruner/engine"

// tree is the indentation structure of a text: the enclosing block of each line, which is
// what lets relevance reach a whole function (or a documentation entry) rather than one line.
type tree struct {
	parent []int32 // enclosing header line, -1 at top level
	end    []int32 // end (exclusive) of the block a line heads; i+1 for a leaf
}

// Indent returns the indentation width of l (a tab counts 4) and whether l has any
// non-blank character; a blank line reports width 0.
func Indent(l string) (width int, nonBlank bool) { return indentOf(l) }

func indentOf(l string) (int, bool) {
	w, i, _ := indentEnd(l)
	return w, i < len(l)
}

// indentEnd returns the indentation width of l (a tab counts 4; 0 for a blank line), the
// index of its first non-blank byte (len(l) for a blank line) and whether everything before
// that byte is ' ', '\t' or '\r' (the bytes isCloser steps over).
func indentEnd(l string) (width, first int, plain bool) {
	// Code is indented with spaces: count them in a loop of their own.
	i := 0
	for i < len(l) && l[i] == ' ' {
		i++
	}
	w, plain := i, true
	for ; i < len(l); i++ {
		switch l[i] {
		case ' ':
			w++
		case '\t':
			w += 4
		case '\r':
		case '\f', '\v':
			plain = false
		case 0x1b:
			// A terminal colour code (ESC [ parameters letter) is no text: CI logs colour
			// a line before its indentation as often as after it.
			if i+1 < len(l) && l[i+1] == '[' {
				plain = false
				i = engine.SkipEscape(l, i) - 1 // the loop steps past the sequence's final byte
				continue
			}
			return w, i, plain
		default:
			return w, i, plain
		}
	}
	return 0, len(l), plain
}

// closers are lines that end a brace block at the block's own indentation ("}", "end",
// "})"): they belong to the block they close.
// closesAt reports whether the line l, whose indentation ends at i, is a closer.
func closesAt(l string, i int) bool {
	if i >= len(l) {
		return false
	}
	switch l[i] {
	case '}', ')', ']':
		return true
	case 'e':
		return len(l) >= i+3 && l[i:i+3] == "end" && (len(l) == i+3 || !isWordByte(l[i+3]))
	}
	return false
}

func buildTree(lines []string) tree {
	n := len(lines)
	t := tree{parent: int32Bufs.borrow(n), end: int32Bufs.borrow(n)}
	type frame struct {
		line   int32
		indent int
	}
	stack := make([]frame, 0, 32)
	lastNonBlank := int32(-1)
	for i, l := range lines {
		t.end[i] = int32(i + 1)
		ind, first, plain := indentEnd(l)
		if ind == 0 && first < len(l) && isDigit(l[first]) {
			ind = gutterWidth(l, first)
		}
		if first == len(l) { // blank: inside whatever block is open
			t.parent[i] = -1
			if len(stack) > 0 {
				t.parent[i] = stack[len(stack)-1].line
			}
			continue
		}
		// A form feed or a colour code in the indentation makes no closer.
		closer := plain && closesAt(l, first)
		for len(stack) > 0 && (stack[len(stack)-1].indent > ind || (stack[len(stack)-1].indent == ind && !closer)) {
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			t.end[top.line] = lastNonBlank + 1
		}
		if closer && len(stack) > 0 && stack[len(stack)-1].indent == ind {
			// "}" closes the block whose header has the same indentation.
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			t.parent[i] = top.line
			t.end[top.line] = int32(i + 1)
			lastNonBlank = int32(i)
			if opensBlock(l) { // "} else {": the closer heads the next block
				stack = append(stack, frame{line: int32(i), indent: ind})
			}
			continue
		}
		t.parent[i] = -1
		if len(stack) > 0 {
			t.parent[i] = stack[len(stack)-1].line
		}
		stack = append(stack, frame{line: int32(i), indent: ind})
		lastNonBlank = int32(i)
	}
	for _, f := range stack {
		t.end[f.line] = lastNonBlank + 1
	}
	for i := range t.end {
		if t.end[i] <= int32(i) {
			t.end[i] = int32(i + 1)
		}
	}
	return t
}

func opensBlock(l string) bool {
	for j := len(l) - 1; j >= 0; j-- {
		switch l[j] {
		case ' ', '\t', '\r':
			continue
		case '{', ':':
			return true
		}
		return false
	}
	return false
}

// gutterWidth returns, for a line of a compiler's code excerpt whose line number starts the
// line at l[first] ("88 |     let total: u64 = …", as rustc and GHC print them), the width
// from the number to its '|', where the excerpt's other lines ("   |     ^^^ expected `u64`")
// are indented: the number is the gutter, not the line's text, and read as text it closed the
// diagnostic's block at the one line that shows the code. It returns 0 for any other line.
// Excerpts indented as a whole (jest's, under its failure) keep the number's indentation:
// their lines are inside the failure's block already, and reading the gutter as one more
// level put them out of its reach (logs.dev lost 0.12 on two jest logs).
func gutterWidth(l string, first int) int {
	j := digitsEnd(l, first)
	k := j
	for k < len(l) && l[k] == ' ' {
		k++
	}
	if k == j || k >= len(l) || l[k] != '|' {
		return 0
	}
	return k - first
}
