package server

import (
	"context"
	"time"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// admission bounds how many prunes run at once. Scoring is CPU-bound: past a few per core,
// more concurrency only makes every request slow, and under overload all of them would miss
// their deadline together and fail open. With a bound, requests queue and finish in order;
// the time spent queueing counts against the request's timeout_ms.
type admission struct {
	slots chan struct{}
}

func newAdmission(n int) *admission { return &admission{slots: make(chan struct{}, n)} }

// prune runs eng.Prune once a slot is free. If no slot frees up within the request's
// timeout, the engine is still called, with a 1 ms budget, so the answer is its honest
// fail-open result (warning "timeout") rather than an error.
func (a *admission) prune(ctx context.Context, eng *engine.Engine, req *engine.Request) (*engine.Result, error) {
	budget := time.Duration(req.Options.TimeoutMS) * time.Millisecond
	if budget <= 0 {
		// Invalid or absent options (e.g. an oversized text answered before its options are
		// read): let the engine decide, without waiting.
		return eng.Prune(ctx, req)
	}
	start := time.Now()
	timer := time.NewTimer(budget)
	defer timer.Stop()
	select {
	case a.slots <- struct{}{}:
		defer func() { <-a.slots }()
		left := budget - time.Since(start)
		r := *req
		r.Options.TimeoutMS = max(1, int(left/time.Millisecond))
		return eng.Prune(ctx, &r)
	case <-timer.C:
		r := *req
		r.Options.TimeoutMS = 1
		return eng.Prune(ctx, &r)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
