package heuristic

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/engine"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLogsColouredWords: a terminal colour code glued to a word ("\x1b[31merror") hides
// nothing: the word is read as itself, for failure vocabulary and goal terms alike.
func TestLogsColouredWords(t *testing.T) {
	assert.Equal(t, appendTerms(nil, "error parse_header"), appendTerms(nil, "\x1b[0m[\x1b[31merror\x1b[0m] \x1b[1;33mparse_header\x1b[0m"))
	assert.Equal(t, 1.0, failureOf("\x1b[0m[\x1b[31merror\x1b[0m] compilation aborted"))
	assert.Equal(t, appendTerms(nil, "error "), appendTerms(nil, "error \x1b[31"), "an unterminated sequence ends the line's terms")
}

// TestLogsReporterMarks: a passing test whose name says "fails" (mocha ✓, Pester [+]) ranks
// below a failing one (✗, [-]) whose line has no failure word at all.
func TestLogsReporterMarks(t *testing.T) {
	line := failureOf
	assert.Greater(t, line("    ✗ testThatAppendingResponseSerializerToCancelledRequestCallsCompletion, Test crashed"), line("    ✓ fails when the socket closes early"))
	assert.Greater(t, line("[-] runs all files from the local folder -> Expected and actual values differ!"), line("[+] - failing in onetime setup will fail the block"))
	assert.Greater(t, line("  1 failing"), line("[+] - failing in onetime setup will fail the block"))
	assert.Zero(t, line("copied 12 assets [+] done"), "a pass mark alone is no failure")
}

// TestLogsCommandSucceeded: Travis's report of a command that exited with 0 says
// "exited", but nothing failed.
func TestLogsCommandSucceeded(t *testing.T) {
	assert.Zero(t, failureOf("\x1b[32;1mThe command \"node ./bin/cake build:browser\" exited with 0.\x1b[0m"))
	assert.Zero(t, failureOf("\" exited with 0.\x1b[0m"), "the last line of a command of several lines")
	assert.Positive(t, failureOf("\x1b[31;1mThe command \"node ./bin/cake test\" exited with 139.\x1b[0m"))
}

func failureOf(l string) float64 {
	return lineFailure(l, appendTerms(nil, l))
}

func TestEmbeddedTerms(t *testing.T) {
	h, emb := appendTermsFlagged(nil, nil, "onErrorFailed x AssertionError error_log", -1)
	want := []termHash{hashString("on"), hashString("error"), hashString("failed"), hashString("onerrorfailed"),
		hashString("assertion"), hashString("error"), hashString("assertionerror"), hashString("error"), hashString("log"), hashString("errorlog")}
	assert.Equal(t, want, h)
	assert.Equal(t, []bool{true, true, false, false, true, false, false, true, true, true}, emb, "error_log is snake case: all its terms are embedded")
	assert.Equal(t, appendTerms(nil, "onErrorFailed x AssertionError error_log"), h, "the same terms as appendTerms")
	for upto := range len(h) + 1 {
		hu, eu := appendTermsFlagged([]termHash{}, []bool{}, "onErrorFailed x AssertionError error_log", upto)
		require.GreaterOrEqual(t, len(hu), upto, "read at least %d terms", upto)
		assert.Equal(t, h[:len(hu)], hu, "a prefix of the whole line's terms, read up to %d", upto)
		assert.Equal(t, emb[:len(eu)], eu, "with the whole line's flags, read up to %d", upto)
	}
	hu, _ := appendTermsFlagged(nil, nil, "onErrorFailed x AssertionError error_log", 2)
	assert.Len(t, hu, 4, "whole identifiers only: onErrorFailed's four terms")
}

// TestLogsCompoundNames: a failure word inside a longer name (a config key, a package, a
// file) counts less than the same word standing alone; a dotted name's last part is whole.
func TestLogsCompoundNames(t *testing.T) {
	for _, l := range []string{
		"TRAVIS_ALLOW_FAILURE => false",
		"connect_failure => 0",
		"   Compiling quick-error v1.2.2",
		"  - Installing symfony/error-handler (4.4.x-dev)",
		"  CXX      util/libbitcoin_util_a-error.o",
		"[ 42 of 147] Compiling Text.Pandoc.Error.hs",
	} {
		assert.Less(t, failureOf(l), 0.6, "%q", l)
	}
	assert.Equal(t, 1.0, failureOf("    java.lang.AssertionError: 13,928,704 -> 113,907,376"))
	assert.Equal(t, 1.0, failureOf("vis-subprocess.h:21:29: error: unknown type name"))
}

// TestLogsRestatedFailures: a count of failures and npm's ERR! epilogue restate a failure
// told above them; the failure itself does not.
func TestLogsRestatedFailures(t *testing.T) {
	for l, want := range map[string]bool{
		"\x1b[1mTests:       \x1b[22m\x1b[1m\x1b[31m1 failed\x1b[39m\x1b[22m, 221 passed, 222 total": true,
		"# fail  4": true,
		"\x1b[37;41mTests: 78\x1b[0m\x1b[37;41m, Assertions: 91\x1b[0m\x1b[37;41m, Failures: 1\x1b[0m": true,
		"make: *** [test-build] Error 2":                       true,
		"error: aborting due to 4 previous errors":             false,
		"ReferenceError: registerCompiled is not defined":      false,
		"src/rabbit_vhost.erl:91: field description undefined": false,
		"Error: 404 (Not Found)":                               true, // a status code reads as a count
	} {
		assert.Equal(t, want, failureTally(l), "%q", l)
	}
	assert.True(t, npmEpilogue("\x1b[0m\x1b[37;40mnpm\x1b[0m \x1b[0m\x1b[31;40mERR!\x1b[0m\x1b[35m\x1b[0m Failed at the eslint-config-airbnb@17.1.1 travis script."))
	assert.True(t, npmEpilogue("npm ERR! code ELIFECYCLE"))
	assert.False(t, npmEpilogue("npm WARN deprecated request@2.88.2"))
	assert.False(t, npmEpilogue("> eslint . && echo npm ERR!"))
	for l, want := range map[string]bool{
		"FAILURE: Build failed with an exception.":                               true,
		"2022-06-16T13:41:36.0262878Z FAILURE: Build completed with 2 failures.": true,
		"BUILD FAILED in 48s": true,
		"** BUILD FAILED **":  true,
		"> Compilation failed; see the compiler error output for details.":              true,
		"> There were failing tests. See the report at: file:///build/index.html":       true,
		"Execution failed for task ':cidiff:checkstyleMain'.":                           false,
		"> Unable to create Root Module: config {/work/config/checkstyle.xml}":          false,
		"[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin": false,
		"Foo.java:47: error: cannot find symbol":                                        false,
	} {
		assert.Equal(t, want, buildEpilogue(l), "%q", l)
		f, _ := logLine(l, appendTerms(nil, l))
		if want {
			assert.InDelta(t, restatedShare*failureOf(l), f, 1e-9, "%q keeps restatedShare of its weight", l)
		}
	}
}

// TestIsLogNoise: progress chatter and zero-count summaries mention failure words without
// being failures; real failure lines, with or without digits, are not noise.
func TestIsLogNoise(t *testing.T) {
	for l, want := range map[string]bool{
		"":                                     true,
		"   ":                                  true,
		"Downloading error-prone-2.3.jar":      true,
		"  Downloaded: failsafe 1.2 (4 KB)":    true,
		"Progress (1): 12/40 KB errors":        true,
		"Compiled with 0 errors":               true,
		"Tests run: 12, 0 failures":            true,
		"lint finished, errors: 0":             true,
		"Tests run: 3, Failures: 0, Errors: 0": true,
		"ERROR: build failed":                  false,
		"Tests run: 12, 1 failures":            false,
		"error: expected 0 arguments, got 2":   false,
		"10 errors":                            true, // "0 errors" inside "10 errors": a known false alarm kept as it was
	} {
		assert.Equal(t, want, isLogNoise(l), "%q", l)
	}
}

// TestSpreadBlocksCloserThatOpensABlock: a closer that opens the next block ("} else {",
// Python's ") -> int:" after a multi-line signature) ends its header's block and heads one of
// its own that runs past it. The best line of that later block is no part of the header's
// block and must not become its peak: it had been, and the distance from it overran the
// decay table (a panic; the engine failed open and kept the whole log).
func TestSpreadBlocksCloserThatOpensABlock(t *testing.T) {
	lines := []string{"def handler(", "    request,", ") -> int:"}
	for i := 0; i < 200; i++ {
		lines = append(lines, "    step()")
	}
	lines = append(lines, "    raise RuntimeError('fatal: build failed')")
	raw := make([]float64, len(lines))
	raw[len(lines)-1] = 1
	s := make([]float64, len(lines))
	copy(s, raw)
	require.NotPanics(t, func() { spreadBlocks(buildTree(lines), raw, s) })
	assert.Zero(t, s[1], "the signature's lines take nothing from the body's last line")
	assert.Equal(t, 1.0, s[len(lines)-1])
}

func TestFailedStepReport(t *testing.T) {
	for l, want := range map[string]bool{
		"\x1b[31;1mThe command \"perlcritic mysqltuner.pl\" exited with 2.\x1b[0m": true,
		"The command \"npm test\" exited with 1.":                                  true,
		"The command \"make\" exited with 125.":                                    true,
		"\x1b[32;1mThe command \"./run.sh --x\" exited with 0.\x1b[0m":             false,
		"The command \"echo \\\"a\\\" exited with 3\" exited with 0.":              false, // the last report wins
		"The command \"eval npm install\" failed. Retrying, 2 of 3.":               false, // retried, not yet failed
		"The command \"eval npm install\" failed 3 times.":                         true,
		"2021-12-01T13:01:04Z ##[error]Process completed with exit code 1.":        true,
		"Done. Your build exited with 1.":                                          false, // the build, not a step
		"ERROR: \"docs-lint\" exited with 1.":                                      false, // a tool's message inside a step
		"echo 'The command \"x\" exited with 1.'":                                  false, // quoted, not reported
		"\x1b[0K\x1b[31;1mThe command \"make\" failed 3 times.\x1b[0m":             true,
		"\" exited with 1.\x1b[0m":                                                 true, // a command of several lines
		"\x1b[0K\" exited with 0.\x1b[0m":                                          false,
		"echo \" exited with 1.":                                                   false,
	} {
		assert.Equal(t, want, failedStepReport(l), "%q", l)
	}
}

// TestFailedStepAnchorsTheLastFailure: Travis runs every script command after one fails, so a
// failing step can be followed by others that pass. The failure that broke the build is the
// failed step's, not whatever comes last in the log: its lines outrank the later step's.
func TestFailedStepAnchorsTheLastFailure(t *testing.T) {
	var lines []string
	for i := 0; i < 300; i++ {
		lines = append(lines, "Setting up package "+string(rune('a'+i%26))+" ...")
	}
	lines = append(lines, "$ perlcritic tuner.pl")
	critic := len(lines)
	lines = append(lines,
		"Use IO::Interactive::is_interactive() instead of -t at line 69, column 28.  (Severity: 5)",
		"Two-argument \"open\" used at line 1024, column 3.  (Severity: 5)",
		"\x1b[31;1mThe command \"perlcritic tuner.pl\" exited with 2.\x1b[0m",
		"$ ./tuner.pl --dbstat")
	later := len(lines)
	for i := 0; i < 150; i++ {
		lines = append(lines, "    innodb_buffer_pool_instances (=1) consider a smaller value for table "+string(rune('a'+i%26)))
	}
	lines = append(lines, "\x1b[32;1mThe command \"./tuner.pl --dbstat\" exited with 0.\x1b[0m", "", "Done. Your build exited with 1.")
	resp, err := New().Score(context.Background(), &engine.ScoreRequest{Lines: lines, Goal: "Why did this CI build fail?", SourceType: engine.SourceLogs})
	require.NoError(t, err)
	s := resp.Scores
	assert.Greater(t, s[critic], s[len(lines)-10], "a line of the failed step outranks the later step's output")
	assert.Greater(t, s[critic+1], s[later+75], "both of the failed step's lines")
}

// TestIsFrame: a stack frame is "at ", a name and a place, in any runtime's spelling, past
// colour codes and indentation; prose that starts with "at" is not one.
func TestIsFrame(t *testing.T) {
	for _, l := range []string{
		"at Verify-Equal, /Users/travis/build/pester/Pester/Dependencies/Axiom/Verify-Equal.ps1:16",
		"\x1b[39;49m\x1b[31m      at <ScriptBlock>, /Users/travis/build/pester/Pester.Runtime.psm1:1408\x1b[39;49m",
		"    at Object.<anonymous> (/home/travis/build/x/test/a.test.js:12:7)",
		"\tat org.junit.Assert.fail(Assert.java:88)",
		"\tat sun.reflect.NativeMethodAccessorImpl.invoke0(Native Method)",
		"   at Nancy.Tests.BrowserFixture.Should_return_JSON() in /x/BrowserFixture.cs:line 42",
		"    at process._tickCallback (internal/process/next_tick.js:68:7)",
	} {
		_, frame := traceLine(l)
		assert.True(t, frame, "%q", l)
	}
	for _, l := range []string{
		"at least one test failed",
		"at 12:30 the build started",
		"Expected: 'file1.Tests.ps1'",
		"at",
		"at  two spaces: 3",
		"",
	} {
		_, frame := traceLine(l)
		assert.False(t, frame, "%q", l)
	}
}

// TestLogsTraceAcrossBlankLines: a failure's report and its frames, each followed by a blank
// line and starting at the margin (PowerShell's output under Travis), come with the failure
// line, while the same report lines with no frame after them do not, and a trace is followed
// no further than maxTraceSpan lines.
func TestLogsTraceAcrossBlankLines(t *testing.T) {
	var lines []string
	noise := func(k int) {
		for i := range k {
			lines = append(lines, "Describing block "+string(rune('a'+i%26)), "")
		}
	}
	noise(60)
	failAt := len(lines)
	lines = append(lines, "[-] - runs all files from the local folder -> Expected and actual values differ!", "",
		"Expected: '/var/folders/T/dir/file1.Tests.ps1'", "", "Actual  : 'file1.Tests.ps1'", "")
	var frames []int
	for k := range 10 {
		frames = append(frames, len(lines))
		lines = append(lines, "at <ScriptBlock>, /Users/travis/build/pester/Pester/new-runtimepoc/Pester.RSpec.ts.ps1:"+strconv.Itoa(100+k), "")
	}
	after := len(lines)
	noise(60)
	// A second failure whose report has no frames after it: nothing below it is a trace.
	lone := len(lines)
	lines = append(lines, "[-] - generates tests -> Expected $null but got 'x'", "", "Expected: $null", "", "Describing other", "")
	noise(200)

	fail, shape := failures(lines)
	s := scoreLogs(lines, Analyze(lines, ParseGoal("Why did this CI build fail?")), fail, shape)
	for _, j := range append([]int{failAt + 2, failAt + 4}, frames...) {
		assert.Greater(t, s[j], 0.8*s[failAt], "line %d %q comes with its failure", j, lines[j])
		assert.Greater(t, s[j], s[after+1], "line %d outranks the noise after the trace", j)
	}
	assert.Less(t, s[lone+2], 0.8*s[lone], "a report line with no frame after it keeps its own score")

	// The same failure with its frames pushed past maxTraceSpan lines below it (blank lines
	// between): they are no longer its trace.
	far := append([]string{}, lines[:failAt+1]...)
	for range maxTraceSpan {
		far = append(far, "")
	}
	farFrame := len(far)
	far = append(far, lines[frames[0]], "", lines[frames[1]], "")
	far = append(far, lines[after:]...)
	fail, shape = failures(far)
	fs := scoreLogs(far, Analyze(far, ParseGoal("Why did this CI build fail?")), fail, shape)
	assert.Less(t, fs[farFrame], 0.5*fs[failAt], "a frame %d lines below the failure is not its trace", farFrame-failAt)
}

// failures is the failure weight and shape of every line, as the scorer's line scan finds them.
func failures(lines []string) ([]float64, []uint64) {
	fail, shape := make([]float64, len(lines)), make([]uint64, len(lines))
	for i, l := range lines {
		fail[i], shape[i] = logLine(l, appendTerms(nil, l))
	}
	return fail, shape
}

// TestGoTestSummary: go test's account of a failing package, "FAIL" alone or with the
// package and its time, restates the failures above it; other tools' FAIL lines are not it.
func TestGoTestSummary(t *testing.T) {
	for l, want := range map[string]bool{
		"FAIL":                              true,
		"FAIL\r":                            true,
		"\x1b[31mFAIL\x1b[0m":               true, // gotestsum and others colour it
		"FAIL\texample.com/svc/pkg3\t31.2s": true,
		"FAIL\texample.com/svc/pkg3 [build failed]": false, // the compiler's messages hold no failure word
		"FAIL\texample.com/svc/pkg3 [setup failed]": false,
		"--- FAIL: TestThing (0.01s)":               false,
		" FAIL  src/app.test.js":                    false, // jest
		"FAILED (failures=1)":                       false, // unittest
		"FAIL: test_parse":                          false, // automake's test driver
		"    --- FAIL: TestOuter/inner (0.00s)":     false,
		"ok  \texample.com/svc/pkg7\t0.41s":         false,
	} {
		assert.Equal(t, want, goTestSummary(l), "%q", l)
	}
}

// TestLiftFailedTestMessagesCapped: a failing test's messages rank with its verdict, the
// maxFailedMessages nearest it only, whatever other output comes between them; another
// test's messages count on their own.
func TestLiftFailedTestMessagesCapped(t *testing.T) {
	const n = 200
	failedAt := make([]int32, n)
	scores := make([]float64, n)
	for i := range failedAt {
		failedAt[i] = -1
		scores[i] = 0.1
	}
	// Test A: 50 messages on every other line (the code's own output between them) above its
	// verdict at 199.
	for i := 98; i < 198; i += 2 {
		failedAt[i] = 199
	}
	scores[199] = 0.8
	// Test B: 3 messages just above its verdict at 60.
	failedAt[57], failedAt[58], failedAt[59] = 60, 60, 60
	failedAt[60] = -1
	scores[60] = 0.6
	liftFailedTestMessages(scores, failedAt)
	a := failedAtOf(failedAt, 199)
	require.Len(t, a, 50)
	for k, i := range a {
		want := 0.1
		if k >= len(a)-maxFailedMessages {
			want = failedMessageShare * 0.8
		}
		assert.InDelta(t, want, scores[i], 1e-12, "test A's message at %d", i)
	}
	for _, i := range []int{57, 58, 59} {
		assert.InDelta(t, failedMessageShare*0.6, scores[i], 1e-12, "test B's message at %d", i)
	}
}

// failedAtOf lists the lines whose verdict is v, in order.
func failedAtOf(failedAt []int32, v int32) []int {
	var out []int
	for i, f := range failedAt {
		if f == v {
			out = append(out, i)
		}
	}
	return out
}

// TestGoDiagnostic: the Go compiler's and go vet's "file.go:LINE:COL: message" lines, and
// not a program's log.Lshortfile lines, a stack frame's position or an indented message.
func TestGoDiagnostic(t *testing.T) {
	for l, want := range map[string]bool{
		"internal/config/load.go:41:9: undefined: yaml.UnmarshalStrict":     true,
		"./main.go:7:2: declared and not used: port":                        true,
		"x_test.go:12:3: printf: Sprintf format %d has arg s of wrong type": true,
		"main.go:42: starting server":                                       false, // log.Lshortfile
		"\t/home/u/go/src/app/main.go:42 +0x1d":                             false, // a stack frame
		"    thing_test.go:142: expected 200":                               false, // a test's message (engine.TestFailureMessage)
		"see docs/setup.go:1:2: for more":                                   false,
		"main.go:41:9:":                                                     false,
		"main.go::9: x":                                                     false,
		".go:1:2: x":                                                        false,
	} {
		assert.Equal(t, want, goDiagnostic(l), "%q", l)
	}
}

// TestGoFrame: the lines of a Go goroutine trace, whose calls are not indented and hold no
// "at ", and whose frames are the runtime's or the program's.
func TestGoFrame(t *testing.T) {
	for l, want := range map[string]int{
		"goroutine 7 [running]:":                                 goNone, // a frame line, but no one's frame
		"testing.tRunner.func1.2({0x61c0e0, 0x8a3c40})":          goRuntime,
		"\t/usr/local/go/src/testing/testing.go:1545 +0x238":     goRuntime,
		"panic({0x61c0e0?, 0x8a3c40?})":                          goRuntime,
		"\t/usr/local/go/src/runtime/panic.go:914 +0x21f":        goRuntime,
		"example.com/svc/cache.(*LRU).Get(0x0, {0x64a1b3, 0x3})": goProgram,
		"\t/work/svc/cache/lru.go:42 +0x2f":                      goProgram,
		"main.main()":                                            goProgram,
		"created by net/http.(*Server).Serve in goroutine 1":     goProgram,
		"\t/work/svc/main.go:12":                                 goProgram,
		"expect(cart.total()).toBe(90);":                         goNone,
		"Expected: foo(bar)":                                     goNone,
		"cache.(":                                                goNone,
		"main.go:42: starting server":                            goNone,
		"(x)":                                                    goNone,
	} {
		assert.Equal(t, want, goFrameOf(l), "%q", l)
	}
	assert.True(t, goFrame("goroutine 7 [running]:"))
}

// TestRaceReportShape: the race detectors' headers weigh as failures, and the lines that open
// a report's creation stacks and close it are read as such.
func TestRaceReportShape(t *testing.T) {
	for _, l := range []string{"WARNING: DATA RACE", "2024-03-01T10:00:00.1Z WARNING: DATA RACE", "WARNING: ThreadSanitizer: data race (pid=9187)"} {
		f, _ := logLine(l, appendTerms(nil, l))
		assert.Equal(t, 1.0, f, "%q", l)
	}
	f, _ := logLine("warning: data race free by construction", appendTerms(nil, "warning: data race free by construction"))
	assert.Less(t, f, 0.5, "prose about races is no report")
	assert.True(t, raceSeparator("=================="))
	assert.True(t, raceSeparator("  ==================\r"))
	assert.False(t, raceSeparator("====="), "too short to be the detector's")
	assert.False(t, raceSeparator("== RUN =="))
	assert.True(t, raceCreation("Goroutine 8 (running) created at:"))
	assert.True(t, raceCreation("Thread T1 (tid=9189, running) created by main thread at:"))
	assert.False(t, raceCreation("Previous write at 0x00c0000a4010 by goroutine 7:"))
	assert.False(t, raceCreation("Thread T1 finished"))
}

// TestLiftRaceReportsNeedsItsEnd: a race header with no closing line within maxTraceSpan lifts
// nothing: where the report ends is unknown.
func TestLiftRaceReportsNeedsItsEnd(t *testing.T) {
	lines := []string{"WARNING: DATA RACE", "Write at 0x1 by goroutine 8:", "  example.com/a.F()", "      /a/a.go:3 +0x1", "--- FAIL: TestF (0.00s)"}
	fail := []float64{1, 0, 0, 0, 1}
	scores := []float64{0.3, 0.1, 0.1, 0.1, 0.6}
	liftRaceReports(lines, fail, scores)
	assert.Equal(t, []float64{0.3, 0.1, 0.1, 0.1, 0.6}, scores)
	lines = append(lines[:4:4], "==================", "--- FAIL: TestF (0.00s)")
	fail = []float64{1, 0, 0, 0, 0, 1}
	scores = []float64{0.3, 0.1, 0.1, 0.1, 0.1, 0.6}
	liftRaceReports(lines, fail, scores)
	assert.InDelta(t, 0.95*0.6, scores[0], 1e-9, "the header ranks with the verdict after the report")
	assert.Greater(t, scores[3], 0.5)
	assert.Equal(t, 0.1, scores[4], "the closing line is not lifted")
}

// TestRunsTest: a goroutine runs a named test when a frame is the test's function, a closure
// in it or was created by it, not a test whose name only starts the same; with no name, when
// testing.(*T).Run started it.
func TestRunsTest(t *testing.T) {
	names := []string{"TestFoo"}
	for frames, want := range map[string]bool{
		"example.com/x.TestFoo(0xc0001a2680)":                       true,
		"example.com/x.TestFoo.func1.2()":                           true,
		"created by example.com/x.TestFoo in goroutine 7":           true,
		"example.com/x.TestFooBar(0xc0001a2680)":                    false,
		"example.com/x.xTestFoo(0xc0001a2680)":                      false,
		"example.com/x.TestFooBar(0x1)\nexample.com/x.TestFoo(0x2)": true,
		"example.com/TestFooBar/x.TestFoo(0x1)":                     true, // the second mention
		"created by testing.(*T).Run in goroutine 1":                false,
	} {
		assert.Equal(t, want, runsTest(strings.Split(frames, "\n"), names), "%q", frames)
	}
	assert.True(t, runsTest([]string{"created by testing.(*T).Run in goroutine 1"}, nil))
	assert.False(t, runsTest([]string{"created by time.goFunc"}, nil))
}

// TestTestReportShape: pytest's and cargo test's failure reports' headers, a pytest test's
// name as the short summary gives it, and the lines that end a report.
func TestTestReportShape(t *testing.T) {
	for l, want := range map[string]bool{
		"____________ test_unsorted_indices ____________":            true,
		"\x1b[1m\x1b[31m_____ TestCart.test_total[2-3] _____\x1b[0m": true,
		"_____ ERROR at setup of test_db _____\r":                    true,
		"_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _":                    false,
		"________________________________________":                   false,
		"___init___":                false,
		"  ____ test_indented ____": false,
		"__________________________ summary __________________________": true,
	} {
		assert.Equal(t, want, pytestHeader(l), "%q", l)
	}
	for header, want := range map[string]string{
		"_____ test_unsorted_indices _____":                  "test_unsorted_indices",
		"\x1b[1m_____ TestCart.test_total[2-3] _____\x1b[0m": "test_total[2-3]",
		"_____ test_ratio[0.5-1.5] _____":                    "test_ratio[0.5-1.5]",
		"_____ ERROR at setup of TestDB.test_db _____":       "test_db",
	} {
		assert.Equal(t, want, pytestName(header), "%q", header)
	}
	m := pytestSummary([]string{
		"FAILED tests/test_cart.py::TestCart::test_total[2-3] - AssertionError: assert 5 == 6",
		"\x1b[31mERROR\x1b[0m tests/test_db.py::test_db - OSError",
		"ERROR: could not install",
		"FAILED tests/test_x.py",
	}, []float64{0.8, 0.7, 0.6, 0.5})
	assert.Equal(t, map[string]float64{"test_total[2-3]": 0.8, "test_db": 0.7}, m)
	assert.True(t, pytestReportEnd("=========================== short test summary info ============================"))
	assert.True(t, pytestReportEnd("---------- coverage: platform linux, python 3.12.2-final-0 -----------"))
	assert.False(t, pytestReportEnd("----------------------------- Captured stdout call -----------------------------"))
	assert.False(t, pytestReportEnd("E       AssertionError"))
	for l, want := range map[string]bool{
		"---- tests::parse_header stdout ----":                 true,
		"\x1b[1m---- grid_reset stderr ----\x1b[0m":            true,
		"---- grid_reset ----":                                 false,
		"----------------------------------------------------": false,
		"  ---- tests::parse stdout ----":                      false,
	} {
		assert.Equal(t, want, cargoHeader(l), "%q", l)
	}
	for l, want := range map[string]bool{
		"There were 10 failures:":                true,
		"There was 1 error:":                     true,
		"\x1b[1mThere were 2 errors:\x1b[0m":     true,
		"There was 1 risky test:":                false,
		"There were 3 skipped tests:":            false,
		"There were many failures:":              false,
		"There was 1 failure: see the log below": false,
	} {
		assert.Equal(t, want, phpunitList(l), "%q", l)
	}
	assert.True(t, phpunitReport("1) Tests\\FooTest::testBar"))
	assert.True(t, phpunitReport("56) Where_test::test_issue4093"))
	assert.False(t, phpunitReport("1)  indented"))
	assert.False(t, phpunitReport("(1) item"))
	assert.False(t, phpunitReport("12"))
	assert.True(t, phpunitListEnd("\x1b[37;41mFAILURES!\x1b[0m"))
	assert.True(t, phpunitListEnd("--"))
	assert.True(t, phpunitListEnd("There was 1 failure:"))
	assert.False(t, phpunitListEnd("--- Expected"))
	assert.True(t, cargoReportEnd("failures:"))
	assert.True(t, cargoReportEnd("test result: FAILED. 118 passed; 1 failed; 0 ignored"))
	assert.False(t, cargoReportEnd("thread 'tests::parse' panicked at src/lib.rs:10:5:"))
}
