package server

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// admission bounds how many prunes run at once. Scoring is CPU-bound: past a few per core,
// more concurrency only makes every request slow, and under overload all of them would miss
// their deadline together and fail open. With a bound, requests queue and finish in order;
// the time spent queueing counts against the request's timeout_ms.
//
// The bound is fixed, or it adapts between two values (see DefaultPruneSlots). The narrow
// bound leaves a P free to read requests and write answers as they come, which keeps the
// tail short when prunes are cheap. When prunes are heavy (a syntax tree parsed for a file
// never seen before takes a millisecond of CPU, against a tenth of that for the request's
// I/O), that P mostly idles while the queue waits, so the bound widens while the recent
// prunes' mean wall time is at least heavyPrune, and narrows again once it falls below
// lightPrune. It is also wide while crowdedQueue or more requests wait.
type admission struct {
	narrow, wide int
	log          *slog.Logger // nil: no log of the bound's changes

	mu      sync.Mutex
	running int
	widened bool
	mean    time.Duration   // moving mean of recent prunes' wall time
	queue   []chan struct{} // waiters in arrival order; a grant sends on the channel
}

const (
	// heavyPrune and lightPrune are the mean prune times at which an adaptive bound widens
	// and narrows. Between them it keeps its state, so it does not flap on a mean that
	// hovers. On 2 cores, a 200-line prune answered from the structural scorer's caches
	// takes ~0.2 ms and a never-seen one ~1.5 ms (benchmarks/RESULTS.md, twenty-second round).
	heavyPrune = time.Millisecond
	lightPrune = 500 * time.Microsecond
	// meanWeight: each prune moves the mean by 1/meanWeight of its distance from it.
	meanWeight = 8
	// maxSample caps what one prune adds to the mean, so a single large text among cheap
	// ones does not widen the bound; two in a row do.
	maxSample = 4 * heavyPrune
)

// newAdmission returns a bound of narrow prunes at once that widens to wide while prunes
// are heavy; narrow == wide is a fixed bound.
func newAdmission(narrow, wide int) *admission {
	return &admission{narrow: narrow, wide: max(narrow, wide)}
}

// crowdedQueue is the number of waiting requests at which an adaptive bound also widens,
// however cheap its prunes, until the queue is shorter again. The spare P that the narrow
// bound keeps reads requests as they come, which shortens the tail when few wait; with this
// many in line, each waits behind several prunes anyway, and the P does more good pruning.
// On 2 cores, 200-line prunes of one text (benchmarks/RESULTS.md, session 35), a fixed bound
// of 2 against 1 at 4 / 8 / 16 / 32 clients: prunes/s +13–34% / +18–24% / +33–42% / +32–58%,
// p99 +0.2–0.8 / +0.3–0.7 / −0.8–+0.1 / −1.5–+1.1 ms: the second slot costs tail only at 8
// clients and fewer, where no more than 7 wait. With this rule, at 32 clients: 2,948–3,442 →
// 4,489–4,979 prunes/s, p99 16.5–18.6 → 14.5–16.6 ms.
const crowdedQueue = 8

// limit is the bound now. The caller holds a.mu.
func (a *admission) limit() int {
	if a.widened || len(a.queue) >= crowdedQueue {
		return a.wide
	}
	return a.narrow
}

// grant hands free slots to the waiters, first come first, up to the bound. The caller
// holds a.mu.
func (a *admission) grant() {
	for len(a.queue) > 0 && a.running < a.limit() {
		ready := a.queue[0]
		a.queue[0] = nil
		a.queue = a.queue[1:]
		a.running++
		ready <- struct{}{}
	}
}

// prune runs eng.Prune once a slot is free. The slot is held until the prune's work has
// ended (engine.Request.Settled), not merely until Prune returns: a scorer that overruns its
// deadline goes on using a CPU after the fail-open answer, so it goes on counting against the
// bound, and the time it holds the slot is the cost the adaptive bound learns from. If no
// slot frees up within the request's timeout, the answer is the engine's timeout fail-open
// (the text stored, unchanged, its tokens estimated), without a prune: no token count, no
// scorer.
func (a *admission) prune(ctx context.Context, eng *engine.Engine, req *engine.Request) (*engine.Result, error) {
	budget := req.Options.Timeout()
	if budget <= 0 {
		// timeout_ms < 1: invalid options, or none (an oversized text answered before its
		// options are read). The engine answers either before it looks up a scorer, so it
		// runs nothing that needs a slot; let it decide, without waiting.
		return eng.Prune(ctx, req)
	}
	start := time.Now()
	got, err := a.acquire(ctx, budget)
	if err != nil {
		return nil, err
	}
	if !got {
		return eng.Fallback(ctx, req.Text, engine.WarnTimeout)
	}
	began := time.Now()
	r := *req
	r.Settled = func() {
		a.release(time.Since(began), true)
		if req.Settled != nil {
			req.Settled()
		}
	}
	r.Options.TimeoutMS = max(1, int((budget-began.Sub(start))/time.Millisecond))
	return eng.Prune(ctx, &r)
}

// acquire takes a slot, waiting in arrival order for at most wait. It reports false when
// the wait ran out first, and ctx's error when ctx ended first; in both cases it holds no slot.
func (a *admission) acquire(ctx context.Context, wait time.Duration) (bool, error) {
	a.mu.Lock()
	if len(a.queue) == 0 && a.running < a.limit() {
		a.running++
		a.mu.Unlock()
		return true, nil
	}
	ready := make(chan struct{}, 1)
	a.queue = append(a.queue, ready)
	a.grant() // a queue this long may widen the bound (crowdedQueue)
	a.mu.Unlock()

	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-ready:
		return true, nil
	case <-timer.C:
		if a.leave(ready) {
			return false, nil
		}
		// Granted as the wait ran out: the slot goes to the next in line.
		a.release(0, false)
		return false, nil
	case <-ctx.Done():
		if !a.leave(ready) {
			a.release(0, false)
		}
		return false, ctx.Err()
	}
}

// leave takes a waiter out of the queue. It reports false when the waiter is no longer
// there because it was granted a slot, which the caller now holds.
func (a *admission) leave(ready chan struct{}) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	i := slices.Index(a.queue, ready)
	if i < 0 {
		return false
	}
	a.queue = slices.Delete(a.queue, i, i+1)
	return true
}

// release gives a slot back. When ran is true, took is the prune's wall time and moves the
// mean that decides an adaptive bound. Waiters are then granted slots, first come first,
// up to the bound.
func (a *admission) release(took time.Duration, ran bool) {
	a.mu.Lock()
	a.running--
	changed := false
	if ran && a.wide > a.narrow {
		a.mean += (min(took, maxSample) - a.mean) / meanWeight
		was := a.widened
		switch {
		case a.mean >= heavyPrune:
			a.widened = true
		case a.mean < lightPrune:
			a.widened = false
		}
		changed = a.widened != was
	}
	a.grant()
	slots, mean := a.limit(), a.mean
	a.mu.Unlock()
	if changed && a.log != nil {
		a.log.Debug("prune slots changed", slog.Int("slots", slots),
			slog.Float64("mean_prune_ms", float64(mean.Microseconds())/1000))
	}
}
