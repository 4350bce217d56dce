package heuristic

import (
	"math"
	"strings"
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
