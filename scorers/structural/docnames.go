package structural

import (
	"strings"

	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
)

// staleDocName is the score of a doc comment that opens with an identifier other than the
// name of the definition it documents, under a goal about comments.
const staleDocName = 1.0

// liftStaleDocNames raises, under a goal about comments, every doc comment that opens with an
// identifier which is not its definition's name ("// AddCommand removes one or more commands"
// above RemoveCommand, "// fileReplacementsProvider handles" above a type renamed since):
// from its first comment line with a word to the end of the definition's header, the
// signature included. Go's convention (and many JSDoc and Rust habits) starts a doc comment
// with the name it documents, so such a comment was copied or outlived a rename, and
// a goal like "fix inconsistent function name in comment" asks for exactly it, in words
// that match nothing of it. Only identifiers written as code count (heuristic.IsCodeLike):
// "Returns the ..." is prose, "JSON encodes ..." an acronym.
// comment is heuristic.CommentLines(lines).
func liftStaleDocNames(q *heuristic.Query, lines []string, s []float64, o *outline, comment []bool) {
	if !q.AboutComments {
		return
	}
	for _, u := range o.units {
		if u.role != roleDef && u.role != roleContainer {
			continue
		}
		name := lastWord(u.name)
		if name == "" {
			continue
		}
		for i := u.start; i < u.bodyStart && i < len(lines); i++ {
			if !comment[i] {
				continue
			}
			w := docFirstWord(lines[i])
			if w == "" {
				continue // "/**" alone: the words start on the next line
			}
			if heuristic.IsCodeLike(w) && w != name {
				// The comment with the signature it contradicts: the reader needs both.
				for j := i; j < u.bodyStart && j < len(s); j++ {
					s[j] = max(s[j], staleDocName)
				}
			}
			break
		}
	}
}

// docFirstWord returns the first word of a comment line, past its comment markers, or "".
func docFirstWord(l string) string {
	t := strings.TrimLeft(l, " \t/*#!-")
	end := 0
	for end < len(t) && isIdentByte(t[end]) {
		end++
	}
	return t[:end]
}
