package server

import (
	"bytes"
	"context"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/tokenizer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultPruneSlots(t *testing.T) {
	for _, tc := range []struct {
		name         string
		procs        int
		narrow, wide int
	}{
		{name: "one CPU still prunes", procs: 1, narrow: 1, wide: 1},
		{name: "two CPUs leave one for I/O while prunes are cheap", procs: 2, narrow: 1, wide: 2},
		{name: "eight CPUs", procs: 8, narrow: 7, wide: 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			narrow, wide := DefaultPruneSlots(tc.procs)
			assert.Equal(t, tc.narrow, narrow)
			assert.Equal(t, tc.wide, wide)
		})
	}
}

// TestNewUsesDefaultAdmission checks a zero MaxConcurrentPrunes gets the adaptive default,
// and an explicit one is a fixed bound.
func TestNewUsesDefaultAdmission(t *testing.T) {
	eng := newTestEngine(t)
	s, err := New(Config{Engine: eng})
	require.NoError(t, err)
	narrow, wide := DefaultPruneSlots(runtime.GOMAXPROCS(0))
	assert.Equal(t, narrow, s.tools.admit.narrow)
	assert.Equal(t, wide, s.tools.admit.wide)
	s, err = New(Config{Engine: eng, MaxConcurrentPrunes: 5})
	require.NoError(t, err)
	assert.Equal(t, 5, s.tools.admit.narrow)
	assert.Equal(t, 5, s.tools.admit.wide)
}

// held takes every slot a admits at once and reports how many that was; it gives them back
// before returning when release is true.
func held(t *testing.T, a *admission, release bool) int {
	t.Helper()
	n := 0
	for {
		got, err := a.acquire(context.Background(), time.Microsecond)
		require.NoError(t, err)
		if !got {
			break
		}
		n++
	}
	if release {
		for range n {
			a.release(0, false)
		}
	}
	return n
}

// feed runs n prunes one at a time that each report took.
func feed(t *testing.T, a *admission, n int, took time.Duration) {
	t.Helper()
	for range n {
		got, err := a.acquire(context.Background(), time.Second)
		require.NoError(t, err)
		require.True(t, got)
		a.release(took, true)
	}
}

func TestAdmissionAdaptsToPruneCost(t *testing.T) {
	a := newAdmission(1, 2)
	var logged bytes.Buffer
	a.log = slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))
	assert.Equal(t, 1, held(t, a, true), "starts narrow")

	feed(t, a, 40, 700*time.Microsecond)
	assert.Equal(t, 1, held(t, a, true), "a mean between the marks keeps the bound")

	feed(t, a, 40, 2*time.Millisecond)
	assert.Equal(t, 2, held(t, a, true), "heavy prunes widen it")

	feed(t, a, 40, 700*time.Microsecond)
	assert.Equal(t, 2, held(t, a, true), "a mean between the marks keeps the bound")

	feed(t, a, 40, 100*time.Microsecond)
	assert.Equal(t, 1, held(t, a, true), "cheap prunes narrow it again")
	changes := strings.Split(strings.TrimSpace(logged.String()), "\n")
	require.Len(t, changes, 2, "one log line per change of the bound")
	assert.Contains(t, changes[0], "slots=2")
	assert.Contains(t, changes[1], "slots=1")

	fixed := newAdmission(1, 1)
	feed(t, fixed, 40, 5*time.Millisecond)
	assert.Equal(t, 1, held(t, fixed, true), "a fixed bound stays put")
}

func TestAdmissionOneLargePruneDoesNotWiden(t *testing.T) {
	a := newAdmission(1, 2)
	feed(t, a, 40, 100*time.Microsecond)
	feed(t, a, 1, 50*time.Millisecond)
	assert.Equal(t, 1, held(t, a, true), "one 50 ms prune among cheap ones")
	feed(t, a, 1, 50*time.Millisecond)
	assert.Equal(t, 2, held(t, a, true), "a second one in a row")
}

// queued waits until n requests wait for a slot.
func queued(a *admission, n int) {
	for {
		a.mu.Lock()
		l := len(a.queue)
		a.mu.Unlock()
		if l >= n {
			return
		}
		runtime.Gosched()
	}
}

func TestAdmissionGrantsInArrivalOrder(t *testing.T) {
	a := newAdmission(1, 1)
	require.Equal(t, 1, held(t, a, false))
	order := make(chan int, 3)
	for i := range 3 {
		go func() {
			got, err := a.acquire(context.Background(), time.Minute)
			if err == nil && got {
				order <- i
				a.release(0, false)
			}
		}()
		queued(a, i+1)
	}
	a.release(0, false)
	for want := range 3 {
		assert.Equal(t, want, <-order)
	}
}

// TestAdmissionWidensWhenCrowded: cheap prunes keep an adaptive bound narrow, but while
// crowdedQueue requests wait it is wide, granting the head of the line, not the newcomer;
// once the line is shorter, a freed slot is not handed on past the narrow bound.
func TestAdmissionWidensWhenCrowded(t *testing.T) {
	a := newAdmission(1, 2)
	require.Equal(t, 1, held(t, a, false), "narrow: one slot for cheap prunes")
	granted := make(chan int, crowdedQueue)
	for i := range crowdedQueue {
		go func() {
			if got, err := a.acquire(context.Background(), time.Minute); err == nil && got {
				granted <- i
			}
		}()
		if i < crowdedQueue-1 {
			queued(a, i+1)
		}
	}
	select {
	case i := <-granted:
		assert.Equal(t, 0, i, "the line's head gets the second slot once the line is crowded")
	case <-time.After(5 * time.Second):
		t.Fatal("a crowded line did not widen the bound")
	}
	a.mu.Lock()
	running, waiting := a.running, len(a.queue)
	a.mu.Unlock()
	assert.Equal(t, 2, running)
	assert.Equal(t, crowdedQueue-1, waiting)

	a.release(0, false) // the line is short again: the bound is narrow, one still runs
	a.mu.Lock()
	running, waiting = a.running, len(a.queue)
	a.mu.Unlock()
	assert.Equal(t, 1, running, "no slot handed on past the narrow bound")
	assert.Equal(t, crowdedQueue-1, waiting)
	select {
	case i := <-granted:
		t.Fatalf("waiter %d granted past the narrow bound", i)
	default:
	}
	a.release(0, false)
	assert.Equal(t, 1, <-granted, "then first come first served")

	fixed := newAdmission(1, 1)
	require.Equal(t, 1, held(t, fixed, false))
	for i := range crowdedQueue + 2 {
		go func() { _, _ = fixed.acquire(context.Background(), 50*time.Millisecond) }()
		queued(fixed, i+1)
	}
	fixed.mu.Lock()
	assert.Equal(t, 1, fixed.running, "a fixed bound does not widen for a crowd")
	fixed.mu.Unlock()
}

func TestAdmissionWaitEnds(t *testing.T) {
	a := newAdmission(1, 1)
	require.Equal(t, 1, held(t, a, false))

	got, err := a.acquire(context.Background(), time.Millisecond)
	require.NoError(t, err)
	assert.False(t, got, "the wait ran out")

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := a.acquire(ctx, time.Minute)
		done <- err
	}()
	queued(a, 1)
	cancel()
	assert.ErrorIs(t, <-done, context.Canceled)

	a.mu.Lock()
	assert.Empty(t, a.queue, "neither waiter stays in line")
	a.mu.Unlock()
	a.release(0, false)
	assert.Equal(t, 1, held(t, a, true), "the slot is free again")
}

// TestAdmissionLeaveAfterGrant covers a waiter whose slot arrives as its wait ends: leave
// reports the grant, so the waiter knows it holds the slot and must give it back.
func TestAdmissionLeaveAfterGrant(t *testing.T) {
	a := newAdmission(1, 1)
	require.Equal(t, 1, held(t, a, false))
	ready := make(chan struct{}, 1)
	a.mu.Lock()
	a.queue = append(a.queue, ready)
	a.mu.Unlock()
	a.release(0, false)
	<-ready
	assert.False(t, a.leave(ready), "granted, so no longer in line")
	a.release(0, false)
	assert.Equal(t, 1, held(t, a, true))
}

// TestAdmissionUnderContention runs many prunes with short waits, cancellations and both
// cheap and heavy costs, and checks the bound is never exceeded and every slot comes back.
func TestAdmissionUnderContention(t *testing.T) {
	a := newAdmission(2, 3)
	var mu sync.Mutex
	running, peak := 0, 0
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				ctx, cancel := context.WithCancel(context.Background())
				if (g+i)%7 == 0 {
					cancel()
				}
				got, err := a.acquire(ctx, time.Duration(1+(g*i)%50)*time.Microsecond)
				cancel()
				if err != nil || !got {
					continue
				}
				mu.Lock()
				running++
				peak = max(peak, running)
				mu.Unlock()
				runtime.Gosched()
				mu.Lock()
				running--
				mu.Unlock()
				a.release(time.Duration((g+i)%3)*time.Millisecond, true)
			}
		}()
	}
	wg.Wait()
	assert.LessOrEqual(t, peak, 3)
	a.mu.Lock()
	assert.Zero(t, a.running)
	assert.Empty(t, a.queue)
	a.mu.Unlock()
}

type constScorer struct{}

func (constScorer) Score(_ context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	return &engine.ScoreResponse{Scores: make([]float64, len(req.Lines))}, nil
}

func newTestEngine(t *testing.T) *engine.Engine {
	t.Helper()
	reg := engine.NewRegistry()
	reg.Register("const", constScorer{})
	reg.SetDefault("const")
	tok, err := tokenizer.Load(tokenizer.CL100K)
	require.NoError(t, err)
	eng, err := engine.New(engine.Config{Registry: reg, Tokens: tok, Store: engine.NewMemoryStore(time.Minute, 1<<20, nil)})
	require.NoError(t, err)
	return eng
}

// BenchmarkAdmission measures taking and giving back a slot, uncontended and with every
// goroutine of -cpu competing for one slot (the queue's path: a channel per waiter).
func BenchmarkAdmission(b *testing.B) {
	for _, tc := range []struct {
		name         string
		narrow, wide int
	}{
		{name: "free", narrow: 1 << 20, wide: 1 << 20},
		{name: "contended", narrow: 1, wide: 1},
	} {
		b.Run(tc.name, func(b *testing.B) {
			a := newAdmission(tc.narrow, tc.wide)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if got, err := a.acquire(context.Background(), time.Minute); err != nil || !got {
						b.Fatal("no slot")
					}
					a.release(time.Microsecond, true)
				}
			})
		})
	}
}

// gatedScorer is a scorer busy in a long computation: it ignores its context and answers
// only once gate is closed. It counts its calls and the most that ran at once.
type gatedScorer struct {
	gate                chan struct{}
	calls, running, top atomic.Int32
}

func newGatedScorer() *gatedScorer { return &gatedScorer{gate: make(chan struct{})} }

func (g *gatedScorer) Score(_ context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	g.calls.Add(1)
	now := g.running.Add(1)
	defer g.running.Add(-1)
	for top := g.top.Load(); now > top && !g.top.CompareAndSwap(top, now); top = g.top.Load() {
	}
	<-g.gate
	return &engine.ScoreResponse{Scores: make([]float64, len(req.Lines))}, nil
}

// gatedEngine is an engine whose only scorer is g, with an input limit of maxChars.
func gatedEngine(t *testing.T, g *gatedScorer, maxChars int) *engine.Engine {
	t.Helper()
	reg := engine.NewRegistry()
	reg.Register("gated", g)
	tok, err := tokenizer.Load(tokenizer.CL100K)
	require.NoError(t, err)
	eng, err := engine.New(engine.Config{Registry: reg, Tokens: tok, MaxInputChars: maxChars,
		Store: engine.NewMemoryStore(time.Minute, 1<<20, nil)})
	require.NoError(t, err)
	return eng
}

func gatedRequest(timeoutMS int) *engine.Request {
	return &engine.Request{Text: strings.Repeat("line\n", 100), GoalHint: "y", SourceType: engine.SourceCode,
		Options: engine.Options{MaxPruneRatio: 0.5, TimeoutMS: timeoutMS, IncludeMarkers: true}}
}

// queuedOrScored waits until a has n requests in line or g has been called calls times,
// whichever comes first: a request that should queue but does not reaches the scorer.
func queuedOrScored(a *admission, n int, g *gatedScorer, calls int32) {
	for {
		a.mu.Lock()
		l := len(a.queue)
		a.mu.Unlock()
		if l >= n || g.calls.Load() >= calls {
			return
		}
		runtime.Gosched()
	}
}

// TestAdmissionHoldsTheSlotWhileTheScorerRuns: a scorer that overruns its deadline keeps its
// slot after its request has failed open, until Score returns; the next request waits for
// it instead of running a second scorer beside it.
func TestAdmissionHoldsTheSlotWhileTheScorerRuns(t *testing.T) {
	g := newGatedScorer()
	eng := gatedEngine(t, g, 0)
	a := newAdmission(1, 1)

	res, err := a.prune(context.Background(), eng, gatedRequest(1))
	require.NoError(t, err)
	assert.Equal(t, []string{engine.WarnTimeout}, res.Warnings, "the first prune fails open at its deadline")

	second := make(chan *engine.Result, 1)
	go func() {
		res, err := a.prune(context.Background(), eng, gatedRequest(60_000))
		assert.NoError(t, err)
		second <- res
	}()
	queuedOrScored(a, 1, g, 2)
	assert.EqualValues(t, 1, g.top.Load(), "one scorer at a time")
	a.mu.Lock()
	assert.Len(t, a.queue, 1, "the second prune waits for the first one's scorer")
	a.mu.Unlock()

	close(g.gate)
	res = <-second
	assert.False(t, res.Stats.UsedFallback, "warnings: %v", res.Warnings)
	assert.EqualValues(t, 1, g.top.Load())
	assert.EqualValues(t, 2, g.calls.Load())
	assert.Equal(t, 1, held(t, a, true), "the slot is free again")
}

// TestAdmissionNeverScoresWithoutASlot: requests that get no slot are answered without a
// scorer: one whose wait in line runs out gets the engine's timeout fail-open (text stored);
// one without a timeout_ms is answered by the engine before it looks up a scorer.
func TestAdmissionNeverScoresWithoutASlot(t *testing.T) {
	for _, tc := range []struct {
		name    string
		req     func() *engine.Request
		warning string // "": an invalid-params error
	}{
		{name: "the wait in line runs out", req: func() *engine.Request { return gatedRequest(1) }, warning: engine.WarnTimeout},
		{name: "no timeout_ms", req: func() *engine.Request { return gatedRequest(0) }},
		{name: "oversized, options unread", warning: engine.WarnInputTooLarge, req: func() *engine.Request {
			return &engine.Request{Text: strings.Repeat("line\n", 1000)}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGatedScorer()
			defer close(g.gate)
			eng := gatedEngine(t, g, 1000)
			a := newAdmission(1, 1)
			require.Equal(t, 1, held(t, a, false))
			req := tc.req()
			res, err := a.prune(context.Background(), eng, req)
			if tc.warning == "" {
				var fe *engine.FieldError
				assert.ErrorAs(t, err, &fe)
			} else {
				require.NoError(t, err)
				assert.Equal(t, []string{tc.warning}, res.Warnings)
				assert.Equal(t, req.Text, res.PrunedText)
				assert.Empty(t, res.ScorerName, "no scorer was asked")
				rec, err := eng.Recover(context.Background(), res.PruneID, []engine.Range{{StartLine: 1, EndLine: 1 << 20}}, false)
				require.NoError(t, err)
				assert.Equal(t, req.Text, rec.RawText, "the text is recoverable")
			}
			assert.Zero(t, g.calls.Load(), "no scorer was called")
			a.release(0, false)
			assert.Equal(t, 1, held(t, a, true), "only the held slot was taken")
		})
	}
}
