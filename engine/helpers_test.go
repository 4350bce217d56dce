package engine_test

import (
	"context"
	"errors"
	"hash/fnv"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/tokenizer"
)

// keywordScorer scores 1 for lines containing any goal word of 2+ letters, 0 otherwise.
type keywordScorer struct{}

func (keywordScorer) Score(_ context.Context, r *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	words := strings.Fields(strings.ToLower(r.Goal))
	out := make([]float64, len(r.Lines))
	for i, l := range r.Lines {
		ll := strings.ToLower(l)
		for _, w := range words {
			if len(w) >= 2 && strings.Contains(ll, w) {
				out[i] = 1
			}
		}
	}
	var focus []string
	if len(words) > 0 {
		focus = words[:1]
	}
	return &engine.ScoreResponse{Scores: out, Focus: focus}, nil
}

// hashScorer gives every line a deterministic pseudo-random score, for fuzzing selection.
type hashScorer struct{}

func (hashScorer) Score(_ context.Context, r *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	out := make([]float64, len(r.Lines))
	for i, l := range r.Lines {
		h := fnv.New32a()
		h.Write([]byte(r.Goal))
		h.Write([]byte(l))
		out[i] = float64(h.Sum32()%1000) / 999
	}
	return &engine.ScoreResponse{Scores: out, Focus: []string{"x"}}, nil
}

// hashThresholdScorer is hashScorer with a per-request threshold drawn from the goal, for
// fuzzing the engine with scorers that set their own threshold.
type hashThresholdScorer struct{}

func (hashThresholdScorer) Score(ctx context.Context, r *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	resp, err := hashScorer{}.Score(ctx, r)
	if err != nil {
		return nil, err
	}
	h := fnv.New32a()
	h.Write([]byte(r.Goal))
	t := float64(h.Sum32()%101) / 100
	resp.Threshold = &t
	return resp, nil
}

type funcScorer func(ctx context.Context, r *engine.ScoreRequest) (*engine.ScoreResponse, error)

func (f funcScorer) Score(ctx context.Context, r *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	return f(ctx, r)
}

var (
	errBoom = errors.New("boom")

	faulty = map[string]engine.Scorer{
		"error": funcScorer(func(context.Context, *engine.ScoreRequest) (*engine.ScoreResponse, error) {
			return nil, errBoom
		}),
		"panic": funcScorer(func(context.Context, *engine.ScoreRequest) (*engine.ScoreResponse, error) {
			panic("scorer bug")
		}),
		"nan": funcScorer(func(_ context.Context, r *engine.ScoreRequest) (*engine.ScoreResponse, error) {
			s := make([]float64, len(r.Lines))
			s[0] = math.NaN()
			return &engine.ScoreResponse{Scores: s}, nil
		}),
		"short": funcScorer(func(_ context.Context, r *engine.ScoreRequest) (*engine.ScoreResponse, error) {
			return &engine.ScoreResponse{Scores: make([]float64, len(r.Lines)-1)}, nil
		}),
		"range": funcScorer(func(_ context.Context, r *engine.ScoreRequest) (*engine.ScoreResponse, error) {
			s := make([]float64, len(r.Lines))
			s[0] = 1.5
			return &engine.ScoreResponse{Scores: s}, nil
		}),
		"nil": funcScorer(func(context.Context, *engine.ScoreRequest) (*engine.ScoreResponse, error) {
			return nil, nil
		}),
		"badthreshold": funcScorer(func(_ context.Context, r *engine.ScoreRequest) (*engine.ScoreResponse, error) {
			t := -0.5
			return &engine.ScoreResponse{Scores: make([]float64, len(r.Lines)), Threshold: &t}, nil
		}),
		// hang ignores its context entirely: the engine must still return at the deadline.
		"hang": funcScorer(func(context.Context, *engine.ScoreRequest) (*engine.ScoreResponse, error) {
			select {}
		}),
		// slow honours its context and reports the deadline.
		"slow": funcScorer(func(ctx context.Context, _ *engine.ScoreRequest) (*engine.ScoreResponse, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}),
	}
)

type fixture struct {
	eng   *engine.Engine
	store *engine.MemoryStore
	tok   *tokenizer.Encoder
}

func newFixture(t testing.TB, maxChars int) *fixture {
	t.Helper()
	tok, err := tokenizer.Load(tokenizer.CL100K)
	require.NoError(t, err)
	reg := engine.NewRegistry()
	reg.Register("keyword", keywordScorer{})
	reg.Register("hash", hashScorer{})
	reg.Register("hashthreshold", hashThresholdScorer{})
	for name, s := range faulty {
		reg.Register(name, s)
	}
	reg.SetDefault("keyword")
	store := engine.NewMemoryStore(time.Minute, 64<<20, nil)
	eng, err := engine.New(engine.Config{Registry: reg, Store: store, Tokens: tok, MaxInputChars: maxChars})
	require.NoError(t, err)
	return &fixture{eng: eng, store: store, tok: tok}
}

func opts(ratio float64, minKeep int) engine.Options {
	return engine.Options{MaxPruneRatio: ratio, MinKeepLines: minKeep, TimeoutMS: 5000, AnnotateLines: false, IncludeMarkers: true}
}

// longLines builds n lines of filler long enough that a marker is cheaper than a run.
func longLines(n int, special map[int]string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if s, ok := special[i]; ok {
			b.WriteString(s)
		} else {
			b.WriteString("    filler value computed here with several ordinary words number ")
			b.WriteString(strings.Repeat("z", i%7+1))
		}
		b.WriteByte('\n')
	}
	return b.String()
}
