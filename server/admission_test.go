package server

import (
	"bytes"
	"context"
	"log/slog"
	"runtime"
	"strings"
	"sync"
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
