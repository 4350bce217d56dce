package benchmarks

import (
	"strings"
	"sync"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// caseCounter counts tokens for the engine runs of one case. The engine counts every line of
// the input on each prune; a case is pruned once per scorer, mode and budget, so counts of
// single lines (and of the whole input) are remembered for the case's lifetime. Multi-line
// strings other than the input (the pruned outputs) are always counted afresh.
type caseCounter struct {
	tok  engine.TokenCounter
	text string

	mu     sync.Mutex
	whole  int // -1 until counted
	lines  map[string]int
	withNL map[string]int // CountLine's counts
}

// The engine prices lines with CountLine when its counter has it (the real tokenizer does):
// without it here, the bench priced every line as its tokens plus one for the newline, an
// overestimate that left ~10% of each budget unspent, so the figures understated what a
// server with the same budget keeps.
var (
	_ engine.TokenCounter = (*caseCounter)(nil)
	_ engine.LineCounter  = (*caseCounter)(nil)
)

func newCaseCounter(tok engine.TokenCounter, text string) *caseCounter {
	return &caseCounter{tok: tok, text: text, whole: -1, lines: map[string]int{}, withNL: map[string]int{}}
}

// Count implements engine.TokenCounter.
func (c *caseCounter) Count(s string) int {
	switch {
	case len(s) == len(c.text) && s == c.text:
		c.mu.Lock()
		n := c.whole
		c.mu.Unlock()
		if n < 0 {
			n = c.tok.Count(s)
			c.mu.Lock()
			c.whole = n
			c.mu.Unlock()
		}
		return n
	case strings.IndexByte(s, '\n') >= 0:
		return c.tok.Count(s)
	}
	return c.memo(c.lines, s, func() int { return c.tok.Count(s) })
}

// CountLine implements engine.LineCounter: the tokens of line+"\n", exact when the
// underlying counter can say, else the engine's own estimate (the line's tokens plus one).
func (c *caseCounter) CountLine(line string) int {
	return c.memo(c.withNL, line, func() int {
		if lc, exact := c.tok.(engine.LineCounter); exact {
			return lc.CountLine(line)
		}
		return c.Count(line) + 1
	})
}

// memo returns m[key], computing it with count (outside the lock) the first time.
func (c *caseCounter) memo(m map[string]int, key string, count func() int) int {
	c.mu.Lock()
	n, ok := m[key]
	c.mu.Unlock()
	if ok {
		return n
	}
	n = count()
	c.mu.Lock()
	m[key] = n
	c.mu.Unlock()
	return n
}

// warm counts the input and each of its lines, so that the timed prunes that follow measure
// scoring, selection, rendering and the count of the output, the same for every scorer. It
// returns the input's count, each line's count alone (the lines accounting's prices) and
// each line's price with its newline (the engine's).
func (c *caseCounter) warm(lines []string) (whole int, perLine, prices []int) {
	whole = c.Count(c.text)
	perLine = make([]int, len(lines))
	prices = make([]int, len(lines))
	for i, l := range lines {
		perLine[i] = c.Count(l)
		prices[i] = c.CountLine(l)
	}
	return whole, perLine, prices
}
