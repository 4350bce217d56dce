package structural

import (
	"context"
	"strings"
	"sync"
)

// A fresh parse of a long file is split at a top-level declaration near its middle and the
// halves are parsed at once, on two cores; each half keeps its own entries in the outline
// and tree caches, so an edit reparses only the half it touches, incrementally. A split
// point is a declaration at column 0 after a blank line: top-level units do not span it, so
// the two outlines, concatenated, are the whole file's (TestHalvesMatchWhole).
const (
	// splitLines is the shortest file split; shorter ones parse whole in a few ms.
	splitLines = 1000
)

// splitLangs are the grammars whose top-level declarations start at column 0 without
// enclosing braces (C-family files, Java and C# classes, PHP tags are not split).
var splitLangs = map[string]bool{"go": true, "python": true, "javascript": true, "typescript": true, "tsx": true, "rust": true}

// splitPoint returns the line where lines can be cut in two independently parsed halves,
// nearest the middle within its middle third, or 0 when there is none. The line must start
// outside every comment, string and bracket (lexicalTop).
func splitPoint(l *lang, lines []string) int {
	n := len(lines)
	if n < splitLines || !splitLangs[l.name] {
		return 0
	}
	var top []bool // computed on the first candidate only: most files have one near the middle
	mid := n / 2
	for d := 0; d < n/6; d++ {
		for _, k := range [2]int{mid - d, mid + d} {
			if !isTopLevelStart(lines, k) {
				continue
			}
			if top == nil {
				top = lexicalTop(l.name, lines)
			}
			if top[k] {
				return k
			}
		}
	}
	return 0
}

// lexicalTop reports, for each line, whether it starts outside every comment, string and
// bracket: a column-0 declaration inside a block comment, a raw or template string, a
// docstring or an object literal is no place to cut. A light lexer for the split
// languages (Go, Python, JavaScript/TypeScript, Rust), approximate where those languages
// are hard to lex (template expressions, Rust lifetimes), never reading past a line's end
// for a one-line string.
func lexicalTop(lang string, lines []string) []bool {
	top := make([]bool, len(lines))
	const (
		code = iota
		block
		multi // a string running over lines: Go raw, JS template, Python triple-quoted
	)
	state, depth, blockDepth := code, 0, 0
	closer := "" // the delimiter that ends the multi-line string
	hash := lang == "python"
	for i, l := range lines {
		top[i] = state == code && depth == 0
		for j := 0; j < len(l); j++ {
			c := l[j]
			switch state {
			case block:
				if c == '*' && j+1 < len(l) && l[j+1] == '/' {
					j++
					if blockDepth--; blockDepth == 0 {
						state = code
					}
				} else if lang == "rust" && c == '/' && j+1 < len(l) && l[j+1] == '*' {
					j++
					blockDepth++
				}
				continue
			case multi:
				if c == '\\' && !(lang == "go" && closer == "`") { // Go's raw strings have no escapes
					j++
					continue
				}
				if strings.HasPrefix(l[j:], closer) {
					j += len(closer) - 1
					state = code
				}
				continue
			}
			switch {
			case hash && c == '#', !hash && c == '/' && j+1 < len(l) && l[j+1] == '/':
				j = len(l) // a line comment
			case !hash && c == '/' && j+1 < len(l) && l[j+1] == '*':
				state, blockDepth = block, 1
				j++
			case hash && (strings.HasPrefix(l[j:], `"""`) || strings.HasPrefix(l[j:], "'''")):
				state, closer = multi, l[j:j+3]
				j += 2
			case c == '`' && lang != "python" && lang != "rust":
				state, closer = multi, "`"
			case c == '"' || c == '\'' && lang != "rust":
				// A one-line string or character: skip to its closing quote on this line.
				for j++; j < len(l) && l[j] != c; j++ {
					if l[j] == '\\' {
						j++
					}
				}
			case c == '(' || c == '[' || c == '{':
				depth++
			case c == ')' || c == ']' || c == '}':
				depth = max(0, depth-1)
			}
		}
	}
	return top
}

// isTopLevelStart: line k opens a top-level declaration (or the comment run leading to
// one) right after a blank line.
func isTopLevelStart(lines []string, k int) bool {
	if k <= 0 || k >= len(lines) || !isBlank(lines[k-1]) || indentOf(lines[k]) != 0 {
		return false
	}
	for i := k; i < len(lines) && i < k+50; i++ {
		l := lines[i]
		if indentOf(l) != 0 || isBlank(l) {
			return false
		}
		if isDecl(l) {
			return true
		}
		if !isLineComment(l) {
			return false
		}
	}
	return false
}

func isLineComment(l string) bool {
	return strings.HasPrefix(l, "//") || strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "#[")
}

// parseHalves parses lines[:k] and lines[k:] concurrently (with parse's caches, under path's
// two halves) and joins their outlines. ok is false when a half could not be used (syntax
// errors, a failed parse): the caller parses the whole file instead.
func (s *Scorer) parseHalves(ctx context.Context, l *lang, path string, lines []string, k int) (o *outline, ok bool, err error) {
	type half struct {
		o     *outline
		warn  string
		err   error
		panic any
	}
	var second half
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		// A panic here would end the process: no recover stands above this goroutine. It is
		// re-raised below, in the scorer's goroutine, where the engine turns it into a
		// fail-open result.
		defer func() { second.panic = recover() }()
		second.o, second.warn, second.err = s.parseWhole(ctx, l, halfPath(path, 2), lines[k:])
	}()
	var first half
	first.o, first.warn, first.err = s.parseWhole(ctx, l, halfPath(path, 1), lines[:k])
	wg.Wait()
	if second.panic != nil {
		panic(second.panic)
	}
	for _, h := range []half{first, second} {
		if h.err != nil {
			return nil, false, h.err
		}
		if h.warn != "" {
			return nil, false, nil
		}
	}
	// parse hands out private copies of cached outlines: the second can shift in place.
	second.o.shift(k, len(first.o.units), len(first.o.keys))
	out := &outline{units: append(first.o.units, second.o.units...), keys: append(first.o.keys, second.o.keys...)}
	return out, true, nil
}

// halfPath is the tree-cache path of one half of path's file ("" stays "": no tree kept).
func halfPath(path string, i int) string {
	if path == "" {
		return ""
	}
	return path + "\x00half" + string(rune('0'+i))
}
