package engine_test

import (
	"context"
	"errors"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/tokenizer"
)

// gatedScorer ignores its context and answers only once gate is closed, as a scorer busy in
// a long computation does; entered tells when Score has been called.
type gatedScorer struct {
	entered chan struct{}
	gate    chan struct{}
}

func newGatedScorer() *gatedScorer {
	return &gatedScorer{entered: make(chan struct{}, 16), gate: make(chan struct{})}
}

func (g *gatedScorer) Score(_ context.Context, r *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	g.entered <- struct{}{}
	<-g.gate
	return &engine.ScoreResponse{Scores: make([]float64, len(r.Lines))}, nil
}

// refusingStore keeps nothing.
type refusingStore struct{}

func (refusingStore) Put(context.Context, string, string) error { return errors.New("full") }
func (refusingStore) Get(context.Context, string) (string, error) {
	return "", engine.ErrPruneIDNotFound
}

// hook counts its calls and signals each on fired.
type hook struct {
	calls atomic.Int32
	fired chan struct{}
}

func newHook() *hook { return &hook{fired: make(chan struct{}, 4)} }

func (h *hook) settled() {
	h.calls.Add(1)
	h.fired <- struct{}{}
}

// settleEngine builds an engine whose registry holds gate, a scorer family that cannot be
// built, and the faulty scorers, over store and counter.
func settleEngine(t *testing.T, gate *gatedScorer, store engine.Store, counter engine.TokenCounter, maxChars int) *engine.Engine {
	t.Helper()
	reg := engine.NewRegistry()
	reg.Register("keyword", keywordScorer{})
	reg.Register("gated", gate)
	for name, s := range faulty {
		reg.Register(name, s)
	}
	reg.RegisterFamily("broken", "never builds", func(context.Context, string) (engine.Scorer, error) {
		return nil, errors.New("model will not load")
	})
	reg.SetDefault("keyword")
	eng, err := engine.New(engine.Config{Registry: reg, Store: store, Tokens: counter, MaxInputChars: maxChars})
	require.NoError(t, err)
	return eng
}

// TestPruneSettlesAdmissionOnce checks Request.Settled is called exactly once on every path out of
// Prune: by the time Prune returns when nothing it started is still running, and only once
// the scorer returns when the scorer outlives its deadline. A hook that is never called
// would leave a server's concurrency slot taken for good; one called early would let
// scorers past their deadline pile up beyond the bound.
func TestPruneSettlesAdmissionOnce(t *testing.T) {
	tok, err := tokenizer.Load(tokenizer.CL100K)
	require.NoError(t, err)
	text := longLines(30, map[int]string{7: "needle"})
	tests := []struct {
		name     string
		scorer   string
		opts     func(*engine.Options)
		store    engine.Store
		counter  func() engine.TokenCounter // armed after the engine is built when a *switchCounter
		maxChars int
		err      bool
		overrun  bool // the gated scorer is still running when Prune returns
		late     bool // the scorer may still be on its way out when Prune returns
		warning  string
	}{
		{name: "pruned", scorer: "keyword"},
		{name: "invalid options", scorer: "keyword", opts: func(o *engine.Options) { o.MaxPruneRatio = 2 }, err: true},
		{name: "no timeout", scorer: "keyword", opts: func(o *engine.Options) { o.TimeoutMS = 0 }, err: true},
		{name: "unknown scorer", scorer: "nope", err: true},
		{name: "scorer cannot be built", scorer: "broken:x", warning: engine.WarnScorerError},
		{name: "input too large", scorer: "keyword", maxChars: 10, warning: engine.WarnInputTooLarge},
		{name: "store refuses", scorer: "keyword", store: refusingStore{}, warning: engine.WarnRecoveryUnavailable},
		{name: "scorer error", scorer: "error", warning: engine.WarnScorerError},
		{name: "scorer panic", scorer: "panic", warning: engine.WarnScorerError},
		{name: "bad scores", scorer: "nan", warning: engine.WarnScorerError},
		{name: "scorer honours its deadline", scorer: "slow", opts: func(o *engine.Options) { o.TimeoutMS = 1 }, late: true, warning: engine.WarnTimeout},
		{name: "counter panics", scorer: "keyword", counter: func() engine.TokenCounter { return &switchCounter{} }, warning: engine.WarnInternalError},
		{name: "scorer overruns its deadline", scorer: "gated", opts: func(o *engine.Options) { o.TimeoutMS = 1 }, overrun: true, warning: engine.WarnTimeout},
		// The deadline leaves the count time to panic (it does at once): at 1 ms a busy machine
		// (-race in CI) may not have run it yet, and the prune then rightly answers with an
		// estimate and WarnTimeout alone. The gated scorer overruns whatever the deadline.
		{name: "counter panics while the scorer overruns", scorer: "gated", opts: func(o *engine.Options) { o.TimeoutMS = 200 },
			counter: func() engine.TokenCounter { return &switchCounter{} }, overrun: true, warning: engine.WarnInternalError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gate := newGatedScorer()
			store := tc.store
			if store == nil {
				store = engine.NewMemoryStore(time.Minute, 1<<20, nil)
			}
			var counter engine.TokenCounter = tok
			if tc.counter != nil {
				counter = tc.counter()
			}
			eng := settleEngine(t, gate, store, counter, tc.maxChars)
			if sc, ok := counter.(*switchCounter); ok {
				sc.armed.Store(true)
			}
			o := opts(0.5, 0)
			if tc.opts != nil {
				tc.opts(&o)
			}
			h := newHook()
			res, err := eng.Prune(context.Background(), &engine.Request{
				Text: text, GoalHint: "needle", SourceType: engine.SourceCode, Options: o, Scorer: tc.scorer, Settled: h.settled,
			})
			if tc.err {
				require.Error(t, err)
			} else {
				require.NoError(t, err)
				if tc.warning == "" {
					assert.False(t, res.Stats.UsedFallback, "warnings: %v", res.Warnings)
				} else {
					assert.Contains(t, res.Warnings, tc.warning)
				}
			}
			switch {
			case tc.late:
				<-h.fired
				assert.EqualValues(t, 1, h.calls.Load())
				return
			case !tc.overrun:
				assert.EqualValues(t, 1, h.calls.Load(), "settled by the time Prune returns")
				return
			}
			<-gate.entered
			assert.Zero(t, h.calls.Load(), "not settled while the scorer still runs")
			close(gate.gate)
			<-h.fired
			assert.EqualValues(t, 1, h.calls.Load())
		})
	}
}

// TestPruneTimeoutTooLargeForADuration: a timeout_ms whose product with a millisecond
// overflows is a distant deadline, not one already past, and Prune refuses it anyway.
func TestPruneTimeoutTooLargeForADuration(t *testing.T) {
	f := newFixture(t, 0)
	o := opts(0.5, 0)
	o.TimeoutMS = math.MaxInt
	assert.Equal(t, time.Duration(math.MaxInt64), o.Timeout(), "the longest duration, not a product wrapped into the past")
	_, err := f.eng.Prune(context.Background(), &engine.Request{
		Text: longLines(30, map[int]string{7: "needle"}), GoalHint: "needle", SourceType: engine.SourceCode, Options: o,
	})
	var fe *engine.FieldError
	require.ErrorAs(t, err, &fe, "and Prune refuses it (MaxTimeoutMS) before any deadline is set")
	assert.Equal(t, "options.timeout_ms", fe.Field)
}
