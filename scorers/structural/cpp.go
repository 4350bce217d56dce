package structural

import "strings"

// firstBranches returns the lines the C and C++ grammars parse: every preprocessor
// conditional (#if, #ifdef, #ifndef … #elif, #else … #endif) reduced to its first branch,
// with the directive lines and the other branches blank, as ctags reads C. Blanking keeps
// each line where it was, so the outline's line numbers are the file's.
//
// The grammars parse a conditional as a node of its own, which must hold whole statements
// or declarations. Real C opens a brace in one branch and closes it after #endif, or
// repeats a function's signature in each branch above one body:
//
//	#ifdef WITH_PTHREAD
//	    if (conf->num_workers) {
//	#else
//	    if (0) {
//	#endif
//
// and the parser's error recovery then swallows the rest of the file in one ERROR node
// (4% of Debian's fixed C files after errors were counted exactly). Read as its first
// branch, such code is one consistent program. An "#if 0" keeps its #else branch instead
// (its first branch is code switched off, often unfinished).
//
// changed is false, and lines returned as they are, when they hold no conditional.
func firstBranches(lines []string) (_ []string, changed bool) {
	var out []string
	// The open conditionals, outermost first.
	type cond struct{ taken, skipping bool }
	var open []cond
	skipping := func() bool {
		for _, c := range open {
			if c.skipping {
				return true
			}
		}
		return false
	}
	blank := func(i int) {
		if out == nil {
			out = make([]string, len(lines))
			copy(out, lines)
		}
		out[i] = ""
	}
	for i := 0; i < len(lines); i++ {
		d, _ := directive(lines[i]) // "" for a line that is none
		kw, rest := conditional(d)
		if kw == "" {
			if skipping() {
				blank(i)
			}
			continue
		}
		off := rest == "0" || rest == "(0)" // #if 0, #elif 0: switched off
		switch {
		case kw == "if" || kw == "ifdef" || kw == "ifndef":
			on := !(kw == "if" && off)
			open = append(open, cond{taken: on, skipping: !on})
		case len(open) == 0:
			// #else or #endif without its #if (a window cut from inside one): leave it.
			continue
		case kw == "endif":
			open = open[:len(open)-1]
		default: // elif, elifdef, elifndef, else
			c := &open[len(open)-1]
			on := !c.taken && !(kw == "elif" && off)
			c.taken, c.skipping = c.taken || on, !on
		}
		// The directive itself, and its continuation lines.
		blank(i)
		for strings.HasSuffix(strings.TrimRight(lines[i], " \t\r"), "\\") && i+1 < len(lines) {
			i++
			blank(i)
		}
	}
	if out == nil {
		return lines, false
	}
	return out, true
}

// directive returns the preprocessor directive of a line ("if 0", "ifdef X", "endif"),
// its "#" and spacing removed, and whether the line is one.
func directive(l string) (string, bool) {
	i := 0
	for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	if i >= len(l) || l[i] != '#' {
		return "", false
	}
	return strings.TrimSpace(l[i+1:]), true
}

// conditional returns the keyword of a directive that opens, continues or closes a
// conditional ("if", "ifdef", "elif", "else", "endif"…) and what follows it, or "".
func conditional(d string) (kw, rest string) {
	for _, k := range [...]string{"ifdef", "ifndef", "if", "elifdef", "elifndef", "elif", "else", "endif"} {
		if strings.HasPrefix(d, k) && (len(d) == len(k) || !isIdentByte(d[len(k)])) {
			return k, strings.TrimSpace(d[len(k):])
		}
	}
	return "", ""
}
