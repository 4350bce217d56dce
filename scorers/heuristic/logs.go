package heuristic

import (
	"math"
	"strings"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// failureWords are words that mark a failure in a build or test log, with their strength.
var failureWords, failureWeights = func() (*termTable, []float64) {
	var hashes []termHash
	var idx []int32
	var weights []float64
	for w, s := range map[string]float64{
		"error": 1, "errors": 0.7, "err": 0.8, "fatal": 1, "failed": 1, "failure": 1, "failures": 0.8,
		"fail": 1, "failing": 0.8, "exception": 1, "traceback": 1, "panic": 1, "panicked": 1,
		"assertionerror": 1, "assert": 0.5, "expected": 0.4, "undefined": 0.7, "cannot": 0.6, "unable": 0.6,
		"denied": 0.6, "refused": 0.6, "missing": 0.5, "invalid": 0.5, "abort": 0.7, "aborted": 0.7,
		"segmentation": 0.9, "killed": 0.6, "timeout": 0.5, "exited": 0.6, "exit": 0.3, "unresolved": 0.7,
		"broken": 0.5, "npm": 0.1, "warning": 0.15, "deprecated": 0.05, "not": 0.2, "found": 0.2,
		"stack": 0.4, "caused": 0.6, "errno": 0.8, "syntaxerror": 1, "typeerror": 1, "nameerror": 1,
		"importerror": 1, "modulenotfounderror": 1, "valueerror": 1, "keyerror": 1, "attributeerror": 1,
		"nullpointerexception": 1, "compilation": 0.5, "violation": 0.6, "violations": 0.6,
		// Pass and skip statuses (weight passWord): lineFailure damps lines that report them.
		"passed": passWord, "pass": passWord, "skipped": passWord, "skip": passWord, "ok": passWord,
	} {
		hashes = append(hashes, hashString(w))
		idx = append(idx, int32(len(weights)))
		weights = append(weights, s)
	}
	return newTermTable(hashes, idx), weights
}()

// passWord is the weight of status words that say a test passed or was skipped.
const passWord = -1

// Weights of lineFailure. logchunks at 10/20/30% of tokens went 0.803/0.922/0.948 ->
// 0.845/0.928/0.949 (with terms read past colour codes), cidiff 0.667/0.797/0.851 ->
// 0.670/0.799/0.852; flat for embeddedShare 0.3-0.7 and passedShare 0.15-0.3.
const (
	embeddedShare = 0.5 // a failure word inside a longer identifier
	passedShare   = 0.3 // a line whose status says passed or skipped
	failGlyph     = 0.8 // a test reporter's fail mark (✗, ✕, [-])
)

// lineFailure is how strongly a line says "failure": its strongest failure word plus a
// little for each other one, read with the terms' places. A failure word that starts or
// sits inside a longer identifier (a test named onErrorFailedExceptionNull) counts
// embeddedShare of its weight, while a whole word, an identifier's last part
// (RuntimeException, BuildError) or its whole form (AssertionError) counts fully; a line
// whose status says a test passed or was skipped ("... > name SKIPPED", "--- PASS:",
// "✓ name", "[+] name") and that holds no standalone failure word counts passedShare; and a
// test reporter's fail mark (✗, ✕, "[-]") counts as a failure word of weight failGlyph.
// hashes are l's terms (appendTerms): most lines hold no failure or status word, and only
// the others are read again for the terms' places.
func lineFailure(l string, hashes []termHash) float64 {
	last := -1 // the last failure or status word among hashes
	for k, h := range hashes {
		if failureWords.mayHold(h) {
			if _, ok := failureWords.probe(h); ok {
				last = k
			}
		}
	}
	marks := mayHoldMarks(l)
	if last < 0 && !marks || commandSucceeded(l) {
		return 0
	}
	// The places are read again only as far as the last failure or status word: later
	// words weigh nothing (in Go source and go test output, "err" tends to come early).
	var hb [64]termHash
	var eb [64]bool
	hashes, embedded := appendTermsFlagged(hb[:0], eb[:0], l, last+1)
	best, sum := 0.0, 0.0
	passed, marked, failedWord := false, false, false
	for k, h := range hashes {
		if j, ok := failureWords.get(h); ok {
			w := failureWeights[j]
			if w == passWord {
				passed = true
				continue
			}
			if embedded[k] {
				w *= embeddedShare
			}
			best = max(best, w)
			sum += w
		}
	}
	if marks {
		if failMark(l) {
			failedWord = true
			best = max(best, failGlyph)
			sum += failGlyph
		} else if best > 0 && passMark(l) {
			passed, marked = true, true
		}
	}
	f := min(1, best+0.15*(sum-best))
	// Status words are upper case in most reporters (PASSED, SKIPPED, "--- PASS:", OK);
	// prose ("failed to pass the check") is not a status.
	if passed && !failedWord && (marked || passStatus(l)) && !strings.Contains(l, "FAIL") && !strings.Contains(l, "ERROR") {
		f *= passedShare
	}
	return f
}

// commandSucceeded reports whether l is Travis's report of a command that passed, The
// command "…" exited with 0. (or that report's last line, when the command spans lines): its
// "exited" is no failure. In half of logs.dev's cases 266 such lines all ranked in the top
// tenth, and 2% were gold. With them at 0 and endsCommandReport, logs.dev recall at 10 / 20 /
// 30% went 0.862 / 0.930 / 0.947 -> 0.864 / 0.930 / 0.947 (+0.0016, 8 cases won and none
// lost at 10%; +0.0001 at 20 and 30%).
func commandSucceeded(l string) bool {
	return strings.Contains(l, exitedWith+"0.")
}

// passStatus reports whether l holds a pass or skip status as reporters print it.
func passStatus(l string) bool {
	for _, w := range [...]string{"PASS", "SKIP", "OK", "ok", "passed", "skipped"} {
		if i := strings.Index(l, w); i >= 0 && (i == 0 || !wordBytes[l[i-1]]) {
			return true
		}
	}
	return false
}

// mayHoldMarks is a quick test for failMark and passMark: "-]" or "+]", or a dingbat check or
// cross (✓ ✔ ✕ ✗ ✘, UTF-8 E2 9C xx).
func mayHoldMarks(l string) bool {
	for i := strings.IndexByte(l, ']'); i > 0; {
		if l[i-1] == '-' || l[i-1] == '+' {
			return true
		}
		j := strings.IndexByte(l[i+1:], ']')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return strings.IndexByte(l, 0xe2) >= 0
}

// failMark: a test reporter's fail mark (mocha and jest ✕, xcpretty ✗, Pester [-]).
func failMark(l string) bool {
	return strings.Contains(l, "[-]") || strings.Contains(l, "\u2715") || strings.Contains(l, "\u2717") || strings.Contains(l, "\u2718")
}

// passMark: a pass mark (✓, ✔, Pester [+]).
func passMark(l string) bool {
	return strings.Contains(l, "[+]") || strings.Contains(l, "\u2713") || strings.Contains(l, "\u2714")
}

// logLine is what the line scan finds in line l of a log, whose terms are hashes: its
// failure weight (lineFailure; a tally, go test's package summary, npm's or a build tool's
// epilogue restates a failure told above it, and keeps restatedShare of it; a race report's
// header weighs as a failure) and, for a failure line, its shape (ShapeHash), which
// scoreLogs counts. Each line alone: the scan runs it on every processor.
func logLine(l string, hashes []termHash) (fail float64, shape uint64) {
	fail = lineFailure(l, hashes)
	if fail < testMessageWeight && (engine.TestFailureMessage(l) || goDiagnostic(l)) {
		fail = testMessageWeight
	}
	if fail <= 0 {
		return fail, 0
	}
	if fail < 1 && raceHeader(l) {
		fail = 1
	}
	if failureTally(l) || npmEpilogue(l) || goTestSummary(l) || buildEpilogue(l) {
		fail *= restatedShare
	}
	return fail, ShapeHash(l)
}

// scoreLogs ranks failure lines (weighted by how rare their shape is in the log and by how
// late they come), the lines right around them, goal matches, and the log's tail. fail and
// shape are each line's logLine.
func scoreLogs(lines []string, a *Analysis, fail []float64, shape []uint64) []float64 {
	n := len(lines)
	// Shapes are counted only for failure lines: they are the ones rarity re-weights.
	shapes := make(map[uint64]int32)
	// A block of the same error repeated line after line is one event, not a hundred: count
	// a shape again only when it reappears after other lines.
	for i := range lines {
		if fail[i] > 0 {
			if !(i >= 1 && shape[i-1] == shape[i]) && !(i >= 2 && shape[i-2] == shape[i] && strings.TrimSpace(lines[i-1]) == "") {
				shapes[shape[i]]++
			}
		}
	}
	// Rarity: a failure line repeated a hundred times (a warning in every file) says less
	// than one that appears once.
	for i := range fail {
		if fail[i] > 0 {
			fail[i] /= 1 + 0.5*math.Log(float64(shapes[shape[i]]))
		}
	}
	zl := strongMatch
	for _, v := range a.Lex {
		zl = max(zl, v)
	}
	// Later failures matter more: the first error is often a tolerated one, the last cluster
	// is what broke the build. But the last cluster is looked for at or before the report of
	// the last step that failed: Travis runs every script command after one fails, and
	// Actions runs post steps, so what follows that report is other steps' output.
	out := floatBufs.borrow(n) // the lines' own scores, before spreading into s
	defer floatBufs.giveBack(out)
	lastFail := -1
	for i := failedStepEnd(lines, fail); i >= 0; i-- {
		if fail[i] >= 0.5 {
			lastFail = i
			break
		}
	}
	// tail = exp(-(n-1-i)/scale) and nearLast = exp(-|i-lastFail|/40), computed as running
	// products rather than two exponentials per line.
	tailStep := math.Exp(1 / (0.04*float64(n) + 30))
	tail := math.Exp(-float64(n-1) / (0.04*float64(n) + 30))
	nearStep := math.Exp(-1.0 / 40)
	near := 0.0
	if lastFail >= 0 {
		near = math.Exp(-float64(lastFail) / 40)
	}
	for i := 0; i < n; i++ {
		pos := float64(i+1) / float64(n)
		nearLast := near
		if i < lastFail {
			near /= nearStep
		} else {
			near *= nearStep
		}
		out[i] = 0.45*fail[i]*(0.5+0.5*pos) + 0.2*a.Lex[i]/zl + 0.2*tail + 0.15*nearLast
		if fail[i] > 0 && isLogNoise(lines[i]) { // only failure words can be false alarms
			out[i] *= 0.3
		}
		tail *= tailStep
	}
	// What leads to a failure (the command) and what follows it (the trace) comes with it.
	// A line before a failure gets 0.65, 0.5, 0.35 of it at distance 1, 2, 3; a line after
	// one 0.75, 0.65, 0.55.
	s := make([]float64, n)
	for i := 0; i < n; i++ {
		v := out[i]
		if i+3 < n && i >= 3 {
			v = max(v, out[i+1]*0.65, out[i+2]*0.5, out[i+3]*0.35, out[i-1]*0.75, out[i-2]*0.65, out[i-3]*0.55)
		} else {
			for d := 1; d <= 3; d++ {
				if j := i + d; j < n {
					v = max(v, out[j]*(0.8-0.15*float64(d)))
				}
				if j := i - d; j >= 0 {
					v = max(v, out[j]*(0.85-0.1*float64(d)))
				}
			}
		}
		s[i] = min(1, v)
	}
	spreadBlocks(a.indentTree(lines), out, s)
	spreadTraces(lines, fail, out, s)
	return s
}

// traceLine reads l past indentation, carriage returns and colour codes, and reports whether
// nothing else is left (blank) or it is a stack frame: "at ", a name (not a number), and a
// place (":" and a line number, C#'s ":line 42", or a runtime's "Native Method", "Unknown
// Source", "<anonymous>") as JavaScript, Java, C# and PowerShell print them, or a line of a Go
// goroutine trace (goFrame); prose such as "at least one test failed" has no place.
func traceLine(l string) (blank, frame bool) {
	i := 0
	for i < len(l) {
		switch c := l[i]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == 0x1b:
			i = engine.SkipEscape(l, i)
		default:
			if goFrame(strings.TrimRight(l[i:], "\r")) {
				return false, true
			}
			if !strings.HasPrefix(l[i:], "at ") || i+3 >= len(l) || l[i+3] == ' ' || isDigit(l[i+3]) {
				return false, false
			}
			rest := l[i+3:]
			for k := strings.IndexByte(rest, ':'); k >= 0; k = strings.IndexByte(rest, ':') {
				rest = rest[k+1:]
				if len(rest) > 0 && isDigit(rest[0]) || strings.HasPrefix(rest, "line ") {
					return false, true
				}
			}
			return false, strings.Contains(l, "Native Method") || strings.Contains(l, "Unknown Source") || strings.Contains(l, "<anonymous>")
		}
	}
	return true, false
}

// goFrame reports whether t (a line past its indentation) is part of a Go goroutine trace, as
// a panic or a test's timeout prints it: the "goroutine 7 [running]:" header, a call
// ("example.com/svc/cache.(*LRU).Get(0x0, {0x64a1b3, 0x3})", "panic({0x61c0e0?, ...})",
// "created by net/http.(*Server).Serve in goroutine 1") or its place
// ("/work/svc/cache/lru.go:42 +0x2f"). Go's calls are not indented and hold no "at ", so a
// panic's trace closed at its first frame.
func goFrame(t string) bool {
	switch {
	case strings.HasPrefix(t, "goroutine ") && strings.HasSuffix(t, "]:"):
		return true
	case strings.HasPrefix(t, "created by "):
		return true
	}
	if k := strings.Index(t, ".go:"); k > 0 && strings.IndexByte(t[:k], ' ') < 0 {
		j := k + len(".go:")
		d := digitsEnd(t, j)
		return d > j && (d == len(t) || strings.HasPrefix(t[d:], " +0x"))
	}
	if !strings.HasSuffix(t, ")") {
		return false
	}
	// The call's arguments open at the parenthesis that the last one closes: a method's
	// receiver has its own, "cache.(*LRU).Get(0x0)".
	depth, p := 0, -1
	for i := len(t) - 1; i >= 0 && p < 0; i-- {
		switch t[i] {
		case ')':
			depth++
		case '(':
			if depth--; depth == 0 {
				p = i
			}
		}
	}
	if p <= 0 || strings.IndexByte(t[:p], ' ') >= 0 {
		return false
	}
	name := t[:p]
	return name == "panic" || strings.Contains(name, ".") && !strings.HasSuffix(name, ".")
}

// Kinds of Go trace lines (goFrameOf).
const (
	goNone    = iota // not a Go frame
	goRuntime        // the runtime's or the testing package's (GOROOT's) frame
	goProgram        // the program's own call or place
)

// goFrameOf says whose frame a trace line is, when it is a Go frame: the runtime's and the
// test harness's (a call of runtime., testing. or panic, a place under GOROOT's src/runtime
// or src/testing) or the program's.
func goFrameOf(l string) int {
	t := strings.TrimRight(strings.TrimLeft(l, " \t"), "\r")
	if !goFrame(t) || strings.HasPrefix(t, "goroutine ") {
		return goNone
	}
	if strings.HasPrefix(t, "runtime.") || strings.HasPrefix(t, "testing.") || strings.HasPrefix(t, "panic(") ||
		strings.HasPrefix(t, "created by testing.") || strings.Contains(t, "/src/runtime/") || strings.Contains(t, "/src/testing/") {
		return goRuntime
	}
	return goProgram
}

// runtimeFrameShare is the share of a trace's lift a Go runtime or testing frame gets.
const runtimeFrameShare = 0.6

// spreadTraces lifts the stack frames below a failure line ("at Verify-Equal, …/x.ps1:16",
// "at Object.<anonymous> (test.js:3:9)"), across blank lines and up to traceLead lines of the
// failure's own report before the first frame ("Expected: …", "Actual: …"), to the failure
// line's score decayed by blockDecay per non-blank line. spreadBlocks already does this for a
// trace indented under its failure; this is for traces that are not, such as PowerShell's
// under Travis, where every other line is blank and frames start at the margin. One pass: a
// failure line opens a trace; the report lines before its first frame and the blank lines
// wait in pending, lifted only when a frame follows them (so the blank lines after a trace
// are not part of it); a line that is neither blank nor a frame once the frames began, or
// past the lead, closes it, and so does a trace maxTraceSpan lines long.
//
// logs.dev at 10 / 20 / 30% of tokens, paired by case (`pruner bench diff … --split` by
// repository): +0.0108 [+0.0025, +0.0191] / +0.0102 [+0.0021, +0.0182] / +0.0067 [+0.0001,
// +0.0134] on logchunks (8 / 6 / 6 logs up, 0 / 0 / 1 down), cidiff unchanged. Pester's logs
// carry it (0.24 → 1.0 in five of them; one with dozens of failures loses 0.17 at 30%), plus
// purescript (+0.21 at 10%): the other repositories' traces are indented and already lifted. A
// first version walked from every failure line, quadratic on a log of failures and frames, and
// lost one cidiff log at 30%; 0.8 × the failure's score instead of 1 gained less at 10%.
func spreadTraces(lines []string, fail, out, s []float64) {
	type waiting struct{ line, nb int }
	var pending []waiting
	active, framed := false, false
	base, nb, others, opened, program := 0.0, 0, 0, 0, 0
	lift := func(j, nb int, share float64) {
		s[j] = max(s[j], min(1, share*base*decayAt[min(nb, maxBlockSpan-1)]))
	}
	for j := range lines {
		if fail[j] >= 0.5 {
			active, framed = true, false
			base, nb, others, opened, program = out[j], 0, 0, j, 0
			pending = pending[:0]
			continue
		}
		if !active {
			continue
		}
		if j-opened > maxTraceSpan {
			active = false
			continue
		}
		blank, frame := traceLine(lines[j])
		switch {
		case blank:
			pending = append(pending, waiting{j, nb})
		case frame:
			nb++
			framed = true
			for _, w := range pending {
				lift(w.line, w.nb, 1)
			}
			pending = pending[:0]
			switch g := goFrameOf(lines[j]); {
			case g == goRuntime:
				// A Go panic's first frames are the runtime's and the test harness's own.
				lift(j, nb, runtimeFrameShare)
			case g == goProgram && program < 2:
				// The program's first call and its place: where it broke. They rank with
				// the failure that opened the trace as it scores after spreading, since the
				// runtime's frames before them have kept the lift's decay from reaching them
				// whole.
				s[j] = max(s[j], s[opened], min(1, base))
				program++
			default:
				lift(j, nb, 1)
			}
		case framed || others >= traceLead:
			active = false
		default:
			others++
			nb++
			pending = append(pending, waiting{j, nb})
		}
	}
}

const (
	// traceLead is how many lines of a failure's report may come before its first frame.
	traceLead = 4
	// maxTraceSpan bounds how far below its failure line a trace is followed.
	maxTraceSpan = 200
)

// restatedShare is the share of its failure weight a line keeps when it restates a failure
// (failureTally, npmEpilogue, goTestSummary, buildEpilogue). In half of logs.dev's cases, test
// summaries with a count ("Tests: 1 failed, 221 passed", "# fail 4", "Failures: 1") were
// never gold and npm's ERR! lines 0 of 400, yet all of them ranked in the top tenth. At 0.5, logs.dev recall at 10 /
// 20 / 30% moved +0.0035 / -0.0000 / +0.0001 (half A +0.0043 / -0.0000 / +0.0002, half B
// +0.0027 / -0.0000 / +0.0001; cidiff 0 / 0 / +0.0027); tallies at 0.3 or 0 did no better on
// half A.
const restatedShare = 0.5

// failureTally reports whether l counts failures: a count before a failure word ("1 failed",
// "3 errors") or after it ("Failures: 1", "# fail 4"), colour codes aside.
func failureTally(l string) bool {
	if !strings.ContainsAny(l, "0123456789") { // most failure lines: no count to find
		return false
	}
	prevEnd, prevNum, prevTally := -1, false, false
	for i := skipNonWord(l, 0); i < len(l); i = skipNonWord(l, i) {
		start := i
		num := true
		for i < len(l) && wordBytes[l[i]] {
			num = num && isDigit(l[i])
			i++
		}
		tally := !num && i-start >= 4 && i-start <= 8 && tallyWord(l[start:i])
		if prevEnd >= 0 {
			if gap := l[prevEnd:start]; prevNum && tally && tallyGap(gap, false) || prevTally && num && tallyGap(gap, true) {
				return true
			}
		}
		prevEnd, prevNum, prevTally = i, num, tally
	}
	return false
}

// tallyWord reports whether w is a failure word a tally counts with (any case).
func tallyWord(w string) bool {
	for _, t := range [...]string{"fail", "failed", "failing", "failure", "failures", "error", "errors"} {
		if strings.EqualFold(w, t) {
			return true
		}
	}
	return false
}

// tallyGap reports whether g, between a count and its failure word, holds only blanks and
// colour codes (and, with colon, at most one ':' or '=').
func tallyGap(g string, colon bool) bool {
	for i := 0; i < len(g); {
		switch c := g[i]; {
		case c == 0x1b:
			i = engine.SkipEscape(g, i)
			continue
		case c == ' ' || c == '\t':
		case colon && (c == ':' || c == '='):
			colon = false
		default:
			return false
		}
		i++
	}
	return true
}

// npmEpilogue reports whether l is one of npm's ERR! lines (npm ERR! code ELIFECYCLE, npm
// ERR! Failed at the … script, npm ERR! A complete log of this run …): npm's account of a
// script that failed, printed after the script's own output said why.
func npmEpilogue(l string) bool {
	i := skipNonWord(l, 0)
	rest, ok := strings.CutPrefix(l[i:], "npm")
	if !ok {
		return false
	}
	return strings.HasPrefix(rest[skipNonWord(rest, 0):], "ERR!")
}

// buildEpilogue reports whether l is a build tool's closing account of a failure that its
// output above said more about: Gradle's "FAILURE: Build failed with an exception." and
// "FAILURE: Build completed with 2 failures.", "BUILD FAILED in 48s" (Ant's and xcodebuild's
// "BUILD FAILED" too), and the two causes Gradle states only by pointing up, "Compilation
// failed; see the compiler error output for details." and "There were failing tests. See the
// report at: …". In logs.dev these 37 lines of 12 Gradle logs held one gold line. Gradle's
// own causes ("Execution failed for task …", "> Unable to create Root Module …") are no
// restatement, nor are Maven's [ERROR] lines, which its logs' labels keep.
func buildEpilogue(l string) bool {
	return strings.Contains(l, "FAILURE: Build ") || strings.Contains(l, "BUILD FAILED") ||
		strings.Contains(l, "Compilation failed; see the compiler error output") || strings.Contains(l, "There were failing tests. See the report")
}

// goDiagnostic reports whether l is a message of the Go compiler or of go vet and the
// linters that print as it does: "path/x.go:LINE:COL: message" at the line's start. Go's
// compiler writes no failure word ("undefined: yaml.UnmarshalStrict", "declared and not used:
// port"), so without its shape a build failure's messages scored as chatter. Both numbers are
// required: a program's log.Lshortfile lines ("main.go:42: starting") have only the line.
func goDiagnostic(l string) bool {
	// It runs on most lines of a log: only the first word is read, and most first words do
	// not end in ':' ("a.go:1:2:" is the shortest that can).
	if l == "" || l[0] == ' ' || l[0] == '\t' {
		return false
	}
	sp := strings.IndexByte(l, ' ')
	if sp < len("a.go:1:2:") || l[sp-1] != ':' {
		return false
	}
	first := l[:sp]
	k := strings.Index(first, ".go:")
	if k <= 0 {
		return false
	}
	i := k + len(".go:")
	for range 2 { // "LINE:", then "COL:"
		j := digitsEnd(l, i)
		if j == i || j >= len(l) || l[j] != ':' {
			return false
		}
		i = j + 1
	}
	return i < len(l) && l[i] == ' '
}

// digitsEnd returns the index past the run of ASCII digits that starts at s[i].
func digitsEnd(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

// goTestSummary reports whether l is go test's account of a package whose tests failed,
// printed after its "--- FAIL" lines said which and why: "FAIL" alone (colour codes and a
// carriage return aside) or "FAIL\t<package>\t<time>". The last such line ends every
// failing run of many packages, and read as the last failure it drew the log's end, the
// passing packages' "ok" lines, above the failing test in the middle. A package that did
// not build ("FAIL\t<package> [build failed]", "[setup failed]") is not restated: the
// compiler's messages above it hold no failure word, and it is what says they failed.
func goTestSummary(l string) bool {
	i := skipNonWord(l, 0)
	rest, ok := strings.CutPrefix(l[i:], "FAIL")
	if !ok {
		return false
	}
	for strings.HasPrefix(rest, "\x1b") {
		rest = rest[engine.SkipEscape(rest, 0):]
	}
	rest = strings.TrimRight(rest, "\r")
	return rest == "" || rest[0] == '\t' && !strings.HasSuffix(rest, " failed]")
}

// failedStepEnd returns the line that reports the last failed step of a CI log, or the last
// line when the log has no such report. Those reports hold a failure word, so only lines with
// fail > 0 are read.
func failedStepEnd(lines []string, fail []float64) int {
	for i := len(lines) - 1; i >= 0; i-- {
		if fail[i] > 0 && failedStepReport(lines[i]) {
			return i
		}
	}
	return len(lines) - 1
}

// failedStepReport reports whether l is a CI runner's report of a step that failed: a line
// opening with Travis's The command "…" exited with 2. (any code but 0) or The command "…"
// failed 3 times. (an install step out of retries), or GitHub Actions' ##[error]Process
// completed with exit code 1.
func failedStepReport(l string) bool {
	// Only reading what a report starts with keeps this cheap on the many failure lines of
	// logs that have none (Travis colours its reports, so colour codes are skipped first).
	if i := strings.IndexByte(l, '#'); i >= 0 && strings.Contains(l[i:], "##[error]Process completed with exit code ") {
		return true
	}
	rest, ok := strings.CutPrefix(l[skipNonWord(l, 0):], "The command \"")
	if !ok {
		return endsCommandReport(l)
	}
	if e := strings.LastIndex(rest, exitedWith); e >= 0 {
		return exitedNonZero(rest[e:])
	}
	e := strings.LastIndex(rest, "\" failed ")
	return e >= 0 && strings.Contains(rest[e:], " times.")
}

// endsCommandReport reports whether l is the last line of a Travis report whose command
// spans lines (a script block with newlines): " exited with N. with N > 0, after colour codes.
// In logs.dev 17 of the 246 half-A logs end their failed step so; their anchor had been the
// log's end (a deploy step's upload errors in Atom's logs).
func endsCommandReport(l string) bool {
	i := 0
	for i < len(l) {
		if l[i] == 0x1b {
			i = engine.SkipEscape(l, i)
		} else if l[i] == ' ' || l[i] == '\r' {
			i++
		} else {
			break
		}
	}
	return exitedNonZero(l[i:])
}

// exitedWith ends the command of a Travis step report: The command "…" exited with N.
const exitedWith = "\" exited with "

// exitedNonZero reports whether s opens with exitedWith and a code other than 0.
func exitedNonZero(s string) bool {
	code, ok := strings.CutPrefix(s, exitedWith)
	return ok && len(code) > 0 && code[0] >= '1' && code[0] <= '9'
}

// Failure blocks: a failure's header and its indented continuation (a stack trace, a test
// report's code/left/right/stacktrace, a compiler diagnostic's explanation) are one event.
const (
	blockDecay   = 0.985 // per line of distance from the block's best line
	maxBlockSpan = 150   // longer indented stretches are sections of the log, not one event
	// maxBlockDepth is how many enclosing blocks a line takes its lift from (the block it
	// heads counts as its own line's): a frame under "stacktrace:" under "1) test ..." needs two.
	maxBlockDepth = 2
)

// decayAt[d] is blockDecay^d for every distance inside a block.
var decayAt = func() (t [maxBlockSpan]float64) {
	t[0] = 1
	for d := 1; d < maxBlockSpan; d++ {
		t[d] = t[d-1] * blockDecay
	}
	return t
}()

// spreadBlocks lifts every line of a short indentation block (a line and the lines indented
// under it) to its block's best score out of raw, decayed by distance, into s; t is the
// lines' indentation tree.
func spreadBlocks(t tree, raw, s []float64) {
	n := len(t.end)
	// peak[i], at[i]: the best raw score in the block headed by i, and its line.
	peak, at := floatBufs.borrow(n), int32Bufs.borrow(n)
	defer floatBufs.giveBack(peak)
	defer int32Bufs.giveBack(at)
	for i := range n {
		peak[i], at[i] = raw[i], int32(i)
	}
	for j := n - 1; j >= 0; j-- {
		// A peak must lie inside the block it lifts, since the decay measures from it. Blank
		// lines past a block's end name its header as parent but are not part of it, and a
		// closer that opens a block ("} else {", ") -> int:") is its header's last line but
		// heads lines past that block's end.
		if p := t.parent[j]; p >= 0 && at[j] < t.end[p] && peak[j] > peak[p] {
			peak[p], at[p] = peak[j], at[j]
		}
	}
	for j := range n {
		for a, depth := t.parent[j], 0; a >= 0 && depth < maxBlockDepth; a, depth = t.parent[a], depth+1 {
			if t.end[a]-a > maxBlockSpan {
				break
			}
			// Blank lines after a block's last line still name its header as their parent;
			// they are not part of it (and may lie past maxBlockSpan).
			if peak[a] <= s[j] || int32(j) >= t.end[a] {
				continue
			}
			d := j - int(at[a])
			if d < 0 {
				d = -d
			}
			s[j] = max(s[j], peak[a]*decayAt[d])
		}
	}
}

// ShapeHash hashes a line with its digits, spaces, tabs and carriage returns dropped, so
// lines that differ only by timestamps, counters or spacing share a shape (FNV-1a over the
// bytes kept). The line-features model's repetition feature uses it too.
func ShapeHash(l string) uint64 {
	h := uint64(fnvOffset)
	for i := 0; i < len(l); i++ {
		c := l[i]
		if (c >= '0' && c <= '9') || c == ' ' || c == '\t' || c == '\r' {
			continue
		}
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}

// isLogNoise recognises progress and download chatter that mentions failure words
// without being failures.
func isLogNoise(l string) bool {
	t := strings.TrimSpace(l)
	if len(t) == 0 || strings.HasPrefix(t, "Downloading") || strings.HasPrefix(t, "Downloaded") || strings.HasPrefix(t, "Progress") {
		return true
	}
	// Every zero-count pattern holds a '0': most failure lines are ruled out by one scan.
	return strings.IndexByte(t, '0') >= 0 && (strings.Contains(t, "0 errors") || strings.Contains(t, "0 failures") ||
		strings.Contains(t, "errors: 0") || strings.Contains(t, "Failures: 0, Errors: 0"))
}

// liftFailedTestMessages ranks the messages go test -v printed for a failing test (t.Errorf,
// t.Log: "    x_test.go:NN: …", and the lines continuing them) with the "--- FAIL" line that
// reports that test, failedAt[i] (engine.TestMessages). They are what failed and why, but
// with -v they come above the verdict, out of reach of the block rules that carry a failure
// to the indented lines under it; and a failing package in the middle of a run of many
// scored them by their place in the log, far from its end: in 979 lines of go test -v
// output, under "which test fails and why", 0.38 for the message against 0.85 for its
// "--- FAIL" line and 0.57 for a later package's "ok" line, so a 300-token budget kept the
// verdict and cut the message. Only the messages nearest their verdict are lifted
// (maxFailedMessages), so a test that logs thousands of lines does not fill the budget.
func liftFailedTestMessages(scores []float64, failedAt []int32) {
	if failedAt == nil {
		return
	}
	cur, lifted := int32(-1), 0 // the verdict whose messages are being counted, from the last up
	for i := len(failedAt) - 1; i >= 0; i-- {
		v := failedAt[i]
		if v < 0 {
			continue
		}
		if v != cur {
			cur, lifted = v, 0
		}
		if lifted < maxFailedMessages {
			scores[i] = max(scores[i], failedMessageShare*scores[v])
			lifted++
		}
	}
}

// failedMessageShare is a failing test's message's score as a share of its "--- FAIL" line's,
// and maxFailedMessages the most message lines of one verdict lifted, nearest it first.
const (
	failedMessageShare = 0.95
	maxFailedMessages  = 40
)

// testMessageWeight is the failure weight of a test's own failure message
// (engine.TestFailureMessage).
const testMessageWeight = 0.8
