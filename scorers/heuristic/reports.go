package heuristic

import (
	"math"
	"strings"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// raceHeader reports whether l opens a race detector's report: Go's "WARNING: DATA RACE" or
// ThreadSanitizer's "WARNING: ThreadSanitizer: data race". The race is why the test or the
// program failed, but "warning" weighs little, and the report scored as chatter. Only lines
// that hold a failure word are asked.
func raceHeader(l string) bool {
	return strings.Contains(l, "DATA RACE") || strings.Contains(l, "ThreadSanitizer: data race")
}

// raceSeparator reports whether l is the line of '=' that opens and closes a race report.
func raceSeparator(l string) bool {
	t := strings.TrimSpace(l)
	return len(t) >= 10 && strings.Trim(t, "=") == ""
}

// liftRaceReports ranks a race detector's report, from its header (raceHeader) to the line of
// '=' that closes it, with the verdict that follows it (the test's "--- FAIL" and "race
// detected during execution of test", the strongest of the raceVerdictReach lines after the
// report) or with its header when nothing stronger follows, top lines first: the header, the
// racing accesses and their frames, then the goroutines' creation (liftTopFirst). A
// report in the middle of a run of many packages scored by its place in the log, below the
// verdict's "FAIL" lines and the passing packages after it: at 200 tokens the verdict was
// kept and the report, which names the two accesses and where they are, was cut. A report
// with no closing line within maxTraceSpan is left to the trace rules.
func liftRaceReports(lines []string, fail, scores []float64) {
	for h := 0; h < len(lines); h++ {
		if fail[h] <= 0 || !raceHeader(lines[h]) {
			continue
		}
		end := -1
		for j := h + 1; j < len(lines) && j-h <= maxTraceSpan; j++ {
			if raceSeparator(lines[j]) {
				end = j
				break
			}
		}
		if end < 0 {
			continue
		}
		ref := scores[h]
		for j := end + 1; j < len(lines) && j-end <= raceVerdictReach; j++ {
			ref = max(ref, scores[j])
		}
		liftTopFirst(lines, scores, h, end, ref)
		h = end
	}
}

// raceCreation reports whether t, a race report's trimmed line, opens the stack of where a
// racing goroutine or thread was created: Go's "Goroutine 8 (running) created at:", TSan's
// "Thread T1 (tid=…, running) created by main thread at:".
func raceCreation(t string) bool {
	return strings.HasSuffix(t, "created at:") || strings.HasPrefix(t, "Thread ") && strings.Contains(t, " created by ")
}

// raceVerdictReach is how many lines after a race report may hold its verdict.
const raceVerdictReach = 8

// liftTopFirst ranks a report's lines[from:to] with ref, the score of the failure it explains,
// top lines first: its k-th non-blank line gets reportShare × ref × reportDecay^k, a Go
// runtime's or testing package's frame runtimeFrameShare of that, and the lines from a race
// report's first creation stack on (raceCreation) raceCreationShare of it: where the racing
// accesses are is the finding, where their goroutines began is context.
func liftTopFirst(lines []string, scores []float64, from, to int, ref float64) {
	v, share := reportShare*ref, 1.0
	for j := from; j < to; j++ {
		t := strings.TrimSpace(lines[j])
		if t == "" {
			continue
		}
		if raceCreation(t) {
			share = raceCreationShare
		}
		w := share
		if goFrameOf(t) == goRuntime {
			w *= runtimeFrameShare
		}
		scores[j] = max(scores[j], w*v)
		v *= reportDecay
	}
}

// Shares of liftTopFirst.
const (
	reportShare       = 0.95
	reportDecay       = 0.99
	raceCreationShare = 0.6
)

// liftTimedOutTests ranks, in the goroutine dump of a go test run that timed out ("panic: test
// timed out after 10m0s"), the goroutines of the tests still running with the panic, top
// first (liftTopFirst, one chain over them all): the tests named under "running tests:" (Go
// 1.20 and later; a goroutine is the test's when one of its frames is the test's function, a
// closure of it, or was created by it), or without that list every goroutine created by
// testing.(*T).Run. The dump lists every goroutine of the test binary, the harness's, the
// HTTP clients', the database pools', in no useful order; the trace rules lift its first
// frames, which are the alarm's, so a budget kept the panic and the harness and cut the
// frames of the test that hung: in a run of 30 packages whose dump held 40 goroutines, no
// line of the hung test's goroutine was kept at 400 tokens.
func liftTimedOutTests(lines []string, fail, scores []float64) {
	n := len(lines)
	var blocks [][2]int // the test goroutines' lines, [start, end)
	for p := 0; p < n; p++ {
		if fail[p] <= 0 || !strings.Contains(lines[p], "panic: test timed out after ") {
			continue
		}
		var names []string
		j := p + 1
		if j < n && strings.TrimSpace(lines[j]) == "running tests:" {
			for j++; j < n && (strings.HasPrefix(lines[j], "\t") || strings.HasPrefix(lines[j], " ")); j++ {
				name, _, _ := strings.Cut(strings.TrimSpace(lines[j]), " ")
				name, _, _ = strings.Cut(name, "/") // a subtest runs in its test's closures
				if name != "" {
					names = append(names, name)
				}
			}
		}
		head := j  // the panic's report ends, the dump begins
		ref := 0.0 // the panic's report and the verdict after the dump
		for k := p; k < head; k++ {
			ref = max(ref, scores[k])
		}
		blocks = blocks[:0]
		for j < n {
			t := strings.TrimSpace(lines[j])
			if t == "" {
				j++
				continue
			}
			if !strings.HasPrefix(t, "goroutine ") || !goFrame(t) {
				break // the dump ends
			}
			end := j + 1
			for end < n && !strings.HasPrefix(strings.TrimSpace(lines[end]), "goroutine ") {
				if _, frame := traceLine(lines[end]); !frame {
					break
				}
				end++
			}
			if runsTest(lines[j+1:end], names) {
				blocks = append(blocks, [2]int{j, end})
			}
			j = end
		}
		for k := j; k < n && k-j < raceVerdictReach; k++ {
			ref = max(ref, scores[k])
		}
		// The panic and the tests it names first, then the tests' goroutines, on one chain.
		liftTopFirst(lines, scores, p, head, ref)
		ref *= math.Pow(reportDecay, float64(head-p))
		for _, b := range blocks {
			liftTopFirst(lines, scores, b[0], b[1], ref)
			ref *= math.Pow(reportDecay, float64(b[1]-b[0]))
		}
		p = j - 1
	}
}

// runsTest reports whether a goroutine's frames run one of the tests named (a frame of the
// test's function or of a closure in it, "pkg.TestX(…)", "pkg.TestX.func1()", or "created by
// pkg.TestX in goroutine 7"), or, when none is named, were started by testing.(*T).Run.
func runsTest(frames []string, names []string) bool {
	for _, f := range frames {
		if len(names) == 0 {
			if strings.Contains(f, "created by testing.(*T).Run") {
				return true
			}
			continue
		}
		for _, name := range names {
			for k := strings.Index(f, name); k >= 0; {
				e := k + len(name)
				if k > 0 && f[k-1] == '.' && (e == len(f) || f[e] == '(' || f[e] == '.' || f[e] == ' ') {
					return true
				}
				next := strings.Index(f[e:], name)
				if next < 0 {
					break
				}
				k = e + next
			}
		}
	}
	return false
}

// liftTestReports ranks every line of a test's failure report, as pytest and cargo test print
// them, at reportWhole of the report's best line or, for pytest, of the test's line in the
// short summary ("FAILED tests/x.py::test_unsorted_indices - TypeError"), whichever is higher.
//   - pytest: from the header ("_____ test_unsorted_indices _____") to the next header, a
//     "=====" rule or a dashed rule that is not one of the test's captured outputs. The
//     report is the test's own source with the failing line marked ">", the frames below
//     it, the "E" lines and the locals.
//   - cargo test: from "---- tests::parse stdout ----" to the next such header, "failures:"
//     (the list of names that follows the reports) or "test result:". The report is what
//     the test printed, then its panic.
//
// All of a report says why the test failed (logs.dev labels whole reports gold), yet only
// the "E" lines, the panics and the places hold failure words, and the rest scored as chatter
// (in scikit-learn's logs 0.03 for the test's ">" line, against 0.6 for its "E" line); and a
// long warnings summary after pytest's reports put them far from the log's end, below the
// summary that restates them. A report longer than maxTestReport lines is left as it is: its
// end was not found.
func liftTestReports(lines []string, scores []float64) {
	n := len(lines)
	var summary map[string]float64 // a failed test's name: its pytest summary line's score
	read := false
	for i := 0; i < n; i++ {
		header, ends := pytestHeader, pytestReportEnd
		pytest := pytestHeader(lines[i])
		switch {
		case pytest:
			if !read {
				summary, read = pytestSummary(lines, scores), true
			}
		case cargoHeader(lines[i]):
			header, ends = cargoHeader, cargoReportEnd
		default:
			continue
		}
		end := i + 1
		for end < n && end-i <= maxTestReport && !header(lines[end]) && !ends(lines[end]) {
			end++
		}
		if end-i > maxTestReport {
			i = end - 1
			continue
		}
		ref := 0.0
		if pytest {
			ref = summary[pytestName(lines[i])]
		}
		liftWhole(scores[i:end], ref)
		i = end - 1
	}
}

// liftWhole lifts every score of a report to reportWhole of its best, or of ref if higher.
func liftWhole(report []float64, ref float64) {
	for _, v := range report {
		ref = max(ref, v)
	}
	for j := range report {
		report[j] = max(report[j], reportWhole*ref)
	}
}

// liftPHPUnitReports ranks every line of each of PHPUnit's numbered failure reports as
// liftTestReports does pytest's. PHPUnit lists them under "There were 10 failures:" (or
// "There was 1 error:"), each from "1) Tests\FooTest::testBar" to the next number: the
// assertion's message, its expected/actual diff, then the places, none of which but the
// message holds a failure word (symfony's diffs, logs.dev labels the whole list). The list
// ends at "FAILURES!", "ERRORS!", the next such list, or the "--" between two.
func liftPHPUnitReports(lines []string, scores []float64) {
	n := len(lines)
	for i := 0; i < n; i++ {
		if !phpunitList(lines[i]) {
			continue
		}
		j := i + 1
		for j < n && !phpunitListEnd(lines[j]) {
			if !phpunitReport(lines[j]) {
				j++
				continue
			}
			end := j + 1
			for end < n && end-j <= maxTestReport && !phpunitReport(lines[end]) && !phpunitListEnd(lines[end]) {
				end++
			}
			if end-j <= maxTestReport {
				liftWhole(scores[j:end], 0)
			}
			j = end
		}
		i = j - 1
	}
}

// phpunitList reports whether l opens PHPUnit's list of failures or errors: "There were 10
// failures:", "There was 1 error:" (colour codes aside). Its risky, skipped and incomplete
// tests' lists are no failure.
func phpunitList(l string) bool {
	if l == "" || l[0] != 'T' && (l[0] != 0x1b || !strings.Contains(l, "There w")) {
		return false
	}
	t := pytestTrim(l)
	rest, ok := strings.CutPrefix(t, "There was ")
	if !ok {
		if rest, ok = strings.CutPrefix(t, "There were "); !ok {
			return false
		}
	}
	d := digitsEnd(rest, 0)
	if d == 0 {
		return false
	}
	switch strings.TrimSpace(rest[d:]) {
	case "failure:", "failures:", "error:", "errors:":
		return true
	}
	return false
}

// phpunitReport reports whether l opens one of PHPUnit's numbered reports, "1) Name".
func phpunitReport(l string) bool {
	d := digitsEnd(l, 0)
	return d > 0 && strings.HasPrefix(l[d:], ") ") && len(l) > d+2 && l[d+2] != ' '
}

// phpunitListEnd reports whether l ends a PHPUnit list of reports.
func phpunitListEnd(l string) bool {
	if l == "" || l[0] != 'F' && l[0] != 'E' && l[0] != 'T' && l[0] != '-' && l[0] != 0x1b {
		return false
	}
	t := pytestTrim(l)
	return strings.HasPrefix(t, "FAILURES!") || strings.HasPrefix(t, "ERRORS!") || t == "--" || phpunitList(l)
}

// reportWhole is a test report's lines' score as a share of its best line's, and
// maxTestReport the longest report lifted.
const (
	reportWhole   = 0.9
	maxTestReport = 300
)

// pytestSummary maps the tests that pytest's short summary reports failed ("FAILED
// tests/x.py::TestCart::test_total[2-3] - AssertionError: …", "ERROR …") to their lines'
// scores, by the name their report's header gives them (pytestName: the last part of the
// node id).
func pytestSummary(lines []string, scores []float64) map[string]float64 {
	var m map[string]float64
	for i, l := range lines {
		if l == "" || l[0] != 'F' && l[0] != 'E' && l[0] != 0x1b {
			continue
		}
		t := pytestText(l)
		if strings.IndexByte(t, 0x1b) >= 0 { // "\x1b[31mFAILED\x1b[0m tests/…"
			t = withoutEscapes(t)
		}
		rest, ok := strings.CutPrefix(t, "FAILED ")
		if !ok {
			if rest, ok = strings.CutPrefix(t, "ERROR "); !ok {
				continue
			}
		}
		id, _, _ := strings.Cut(rest, " - ")
		k := strings.LastIndex(id, "::")
		if k < 0 {
			continue
		}
		if m == nil {
			m = make(map[string]float64)
		}
		name := strings.TrimSpace(id[k+2:])
		m[name] = max(m[name], scores[i])
	}
	return m
}

// pytestName is the test a report's header names, as its node id ends: "TestCart.test_total"
// is the method test_total, "ERROR at setup of test_db" the test test_db.
func pytestName(header string) string {
	name := strings.Trim(strings.TrimRight(pytestTrim(header), " "), "_ ")
	if k := strings.LastIndex(name, " of "); k >= 0 {
		name = name[k+len(" of "):]
	}
	if k := strings.IndexByte(name, '['); k >= 0 { // a parameter may hold dots
		if d := strings.LastIndexByte(name[:k], '.'); d >= 0 {
			name = name[d+1:]
		}
	} else if d := strings.LastIndexByte(name, '.'); d >= 0 {
		name = name[d+1:]
	}
	return name
}

// pytestText returns l past its colour codes and a carriage return.
func pytestText(l string) string {
	for strings.HasPrefix(l, "\x1b") {
		l = l[engine.SkipEscape(l, 0):]
	}
	return strings.TrimRight(l, "\r")
}

// pytestHeader reports whether l heads a pytest failure report: a name between runs of
// underscores, "_____ test_name _____" (colour codes aside); the frames' separators are
// "_ _ _ _".
func pytestHeader(l string) bool {
	// It is asked of every line of a log: most start with neither byte, and a coloured line
	// is read only when it holds the underscores.
	if l == "" || l[0] != '_' && (l[0] != 0x1b || !strings.Contains(l, "___ ")) {
		return false
	}
	t := pytestTrim(l)
	if !strings.HasPrefix(t, "___") || !strings.HasSuffix(t, "___") {
		return false
	}
	inner := strings.Trim(t, "_")
	name := strings.TrimSpace(inner)
	return len(inner) >= len(name)+2 && inner[0] == ' ' && inner[len(inner)-1] == ' ' && name != "" && !strings.Contains(name, "_ _")
}

// pytestReportEnd reports whether l ends a pytest failure report: a "=====" rule (the next
// part of the session: warnings, the short summary) or a dashed rule other than a captured
// output's ("----- Captured stdout call -----" belongs to the test; "---------- coverage:
// …" does not).
func pytestReportEnd(l string) bool {
	t := pytestText(l)
	return strings.HasPrefix(t, "=====") || strings.HasPrefix(t, "-----") && !strings.Contains(t, " Captured ")
}

// pytestTrim returns l past its colour codes at either end, a carriage return and spaces at
// its end.
func pytestTrim(l string) string {
	t := strings.TrimRight(pytestText(l), " ")
	for strings.HasSuffix(t, "m") && strings.LastIndexByte(t, 0x1b) >= 0 {
		t = strings.TrimRight(t[:strings.LastIndexByte(t, 0x1b)], " ")
	}
	return t
}

// withoutEscapes returns l with its terminal control sequences removed.
func withoutEscapes(l string) string {
	var b strings.Builder
	for i := 0; i < len(l); {
		if l[i] == 0x1b {
			i = engine.SkipEscape(l, i)
			continue
		}
		b.WriteByte(l[i])
		i++
	}
	return b.String()
}

// cargoHeader reports whether l heads what cargo test printed for a failing test, "----
// tests::parse stdout ----" (or stderr), colour codes aside.
func cargoHeader(l string) bool {
	if l == "" || l[0] != '-' && (l[0] != 0x1b || !strings.Contains(l, "---- ")) {
		return false
	}
	t := pytestTrim(l)
	return strings.HasPrefix(t, "---- ") && (strings.HasSuffix(t, " stdout ----") || strings.HasSuffix(t, " stderr ----"))
}

// cargoReportEnd reports whether l ends cargo test's failure reports: the "failures:" list of
// their names, or the "test result:" tally.
func cargoReportEnd(l string) bool {
	t := pytestTrim(l)
	return t == "failures:" || strings.HasPrefix(t, "test result:")
}
