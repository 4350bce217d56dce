package server

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/tokenizer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultMaxConcurrentPrunes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		procs int
		want  int
	}{
		{name: "one CPU still prunes", procs: 1, want: 1},
		{name: "two CPUs leave one for I/O", procs: 2, want: 1},
		{name: "eight CPUs", procs: 8, want: 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, DefaultMaxConcurrentPrunes(tc.procs))
		})
	}
}

// TestNewUsesDefaultAdmission checks a zero MaxConcurrentPrunes gets the default, and an
// explicit one is kept.
func TestNewUsesDefaultAdmission(t *testing.T) {
	eng := newTestEngine(t)
	s, err := New(Config{Engine: eng})
	require.NoError(t, err)
	assert.Equal(t, DefaultMaxConcurrentPrunes(runtime.GOMAXPROCS(0)), cap(s.tools.admit.slots))
	s, err = New(Config{Engine: eng, MaxConcurrentPrunes: 5})
	require.NoError(t, err)
	assert.Equal(t, 5, cap(s.tools.admit.slots))
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
