package heuristic

import (
	"regexp"
	"strings"
)

// A goal about format strings ("Fix format string vulnerability", "FTBFS with
// -Werror=format-security", Go vet's "non-constant format string in call to fmt.Printf") is
// fixed at the calls that pass a variable where a format belongs: `printf(msg)` becomes
// `printf("%s", msg)`. The goal names no function; the calls are in the code's shape. On the
// Debian fixes, 54 goals ask it; a printf-family call whose format is not a string literal and
// is its last argument was on 58 lines of their files, 48 of them gold.
var reFormatIntent = regexp.MustCompile(`(?i)format[- ]?(string|security)|wformat|non-constant format|format-nonliteral|format not a string literal`)

// AboutFormatStrings reports whether the goal's first line is about format strings.
func AboutFormatStrings(goal string) bool {
	return titleMatches(reFormatIntent, goal)
}

// formatArg is the index of the format argument of the printf family (C, GLib, curses, BSD
// err(3), and Go's fmt, log and testing methods by their suffix).
var formatArg = map[string]int{
	"printf": 0, "vprintf": 0, "fprintf": 1, "vfprintf": 1, "sprintf": 1, "vsprintf": 1,
	"snprintf": 2, "vsnprintf": 2, "asprintf": 1, "dprintf": 1, "syslog": 1, "vsyslog": 1,
	"err": 1, "errx": 1, "warn": 0, "warnx": 0,
	"printw": 0, "wprintw": 1, "mvprintw": 2, "mvwprintw": 3,
	"g_strdup_printf": 0, "g_print": 0, "g_printerr": 0, "g_warning": 0, "g_error": 0,
	"g_message": 0, "g_critical": 0, "g_debug": 0,
	"Printf": 0, "Sprintf": 0, "Errorf": 0, "Fatalf": 0, "Panicf": 0, "Logf": 0, "Skipf": 0,
	"Fprintf": 1, "Warnf": 0, "Infof": 0, "Debugf": 0,
}

// formatCallLines returns the lines calling a printf-family function with a format that is
// not a string literal (nor a gettext-wrapped one) as the call's last argument, in order.
func formatCallLines(lines []string) []int {
	var out []int
	for i, l := range lines {
		if strings.IndexByte(l, '(') >= 0 && nonLiteralFormat(l) {
			out = append(out, i)
		}
	}
	return out
}

// nonLiteralFormat reports whether line l calls a printf-family function whose last
// argument is its format and is not a string literal.
func nonLiteralFormat(l string) bool {
	for p := 0; p < len(l); p++ {
		if l[p] != '(' {
			continue
		}
		s := p
		for s > 0 && isWordByte(l[s-1]) {
			s--
		}
		k, ok := formatArg[l[s:p]]
		if !ok {
			continue
		}
		args, closed := callArgs(l, p+1)
		if !closed || len(args) != k+1 {
			continue
		}
		if f := strings.TrimSpace(args[k]); f != "" && !literalFormat(f) {
			return true
		}
	}
	return false
}

// literalFormat reports whether argument f is a string literal, or one wrapped for
// translation (_("…"), N_("…"), gettext("…")).
func literalFormat(f string) bool {
	if f[0] == '"' || f[0] == '`' {
		return true
	}
	for _, w := range [...]string{"_(", "N_(", "gettext(", "L(", "_T("} {
		if rest, ok := strings.CutPrefix(f, w); ok && strings.HasPrefix(strings.TrimSpace(rest), `"`) {
			return true
		}
	}
	return false
}

// callArgs splits the arguments of a call whose "(" is just before l[p:], at its top-level
// commas, outside literals; closed says the call's ")" is on the line.
func callArgs(l string, p int) (args []string, closed bool) {
	depth, start := 0, p
	for i := p; i < len(l); i++ {
		switch c := l[i]; c {
		case '"', '\'', '`':
			i = LiteralEnd(l, i)
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				return append(args, l[start:i]), true
			}
			depth--
		case ',':
			if depth == 0 {
				args = append(args, l[start:i])
				start = i + 1
			}
		}
	}
	return append(args, l[start:]), false
}
