package heuristic

// numberWeight is the weight of a number the goal writes on its own (goalNumbers), that of a
// prose word. A number in a goal is most often a literal the lines hold: a status code
// ("500 -> 200"), a limit or a constant ("link distance 120→180"), a port. Goal words were
// letters only, so such a line matched no better than the rest of its function. Measured in
// scorers/structural/RESULTS.md (thirty-second round), structural at 10 / 20 / 30% of
// tokens: commits.dev 2 cases up at 20%, docs.dev 1, none down; on 4,111 Debian fixes (out
// of sample) 3 up and 1 down, 2 and 2, 2 and 0. A code word's weight (1.6) moved a few more
// cases the same way.
const numberWeight = 1.0

// minNumberDigits is the shortest number taken: 0, 1 and 10 are in every other line.
const minNumberDigits = 3

// goalNumbers returns, in order, the integers of minNumberDigits or more digits the goal
// writes on their own: not inside a word (utf8, 0x7fb1, 318d6bc4b), a version or a decimal
// (5.1.2, 350.0), an issue or a pull request (#7810, /pull/7057), a cited line or a port
// (x.py:123, localhost:8080). A minus sign before it separates, as it does in a line
// ("strength(-400)"), and so does a non-ASCII character (an arrow: "120→180").
func goalNumbers(goal string) []string {
	var out []string
	for i := 0; i < len(goal); {
		if !isDigit(goal[i]) {
			i++
			continue
		}
		j := i
		for j < len(goal) && isDigit(goal[j]) {
			j++
		}
		ok := j-i >= minNumberDigits
		if i > 0 {
			switch p := goal[i-1]; {
			case isASCIIWordByte(p), p == '#', p == '.', p == '/', p == ':':
				ok = false
			}
		}
		if j < len(goal) {
			c := goal[j]
			if isASCIIWordByte(c) || c == '.' && j+1 < len(goal) && isDigit(goal[j+1]) {
				ok = false
			}
		}
		if ok {
			out = append(out, goal[i:j])
		}
		// Skip the rest of the word the digits end (the "d6bc4b" of 318d6bc4b).
		for i = j; i < len(goal) && isASCIIWordByte(goal[i]); i++ {
		}
	}
	return out
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isASCIIWordByte reports whether c is an ASCII letter, digit or '_'.
func isASCIIWordByte(c byte) bool { return c < 0x80 && wordBytes[c] }
