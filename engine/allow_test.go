package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/tokenizer"
)

// TestRegistryAllow: once a server has said which family specs it builds, a request cannot
// make it build another (load a directory, call a URL); what was allowed or built stays usable.
func TestRegistryAllow(t *testing.T) {
	ctx := context.Background()
	reg := engine.NewRegistry()
	reg.Register("keyword", keywordScorer{})
	var built []string
	for _, fam := range []string{"dir", "url", "plugin"} {
		reg.RegisterFamily(fam, fam+" family", func(_ context.Context, arg string) (engine.Scorer, error) {
			built = append(built, fam+":"+arg)
			return keywordScorer{}, nil
		})
	}
	_, err := reg.Get(ctx, "url:http://warm")
	require.NoError(t, err, "before Allow every spec is built (a command's user is its operator)")

	for _, bad := range []string{"nofam:x", "dir", "dir:"} {
		assert.ErrorIs(t, reg.Allow(bad), engine.ErrUnknownScorer, "%q is an operator's typo", bad)
	}
	require.NoError(t, reg.Allow("dir:models/a", "plugin:*"))

	for _, tc := range []struct {
		name, spec string
		allowed    bool
	}{
		{name: "registered name", spec: "keyword", allowed: true},
		{name: "allowed spec", spec: "dir:models/a", allowed: true},
		{name: "open family", spec: "plugin:anything", allowed: true},
		{name: "built before Allow", spec: "url:http://warm", allowed: true},
		{name: "other argument", spec: "dir:/etc"},
		{name: "same directory spelled otherwise", spec: "dir:./models/a"},
		{name: "family not allowed", spec: "url:http://127.0.0.1:1/steal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := reg.Get(ctx, tc.spec)
			if tc.allowed {
				assert.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, engine.ErrScorerNotAllowed)
			assert.NotErrorIs(t, err, engine.ErrUnknownScorer, "the family exists; the argument is what is refused")
		})
	}
	assert.Equal(t, []string{"url:http://warm", "dir:models/a", "plugin:anything"}, built, "a refused spec builds nothing")

	_, err = reg.Get(ctx, "missing")
	assert.ErrorIs(t, err, engine.ErrUnknownScorer, "an unknown name is still unknown, not refused")
	require.NoError(t, reg.Allow("url:*"), "Allow adds to what was allowed")
	_, err = reg.Get(ctx, "url:http://gpu:8000")
	assert.NoError(t, err)
}

// TestPruneFailsOpenWhenItsScorerCannotBeBuilt: a scorer that exists but cannot be built now
// (a model that will not load, a plugin that will not start) is a runtime failure: the text
// comes back unchanged and recoverable with scorer_error, and the log learns why. An unknown
// or refused scorer is the caller's error, as before.
func TestPruneFailsOpenWhenItsScorerCannotBeBuilt(t *testing.T) {
	ctx := context.Background()
	tok, err := tokenizer.Load(tokenizer.CL100K)
	require.NoError(t, err)
	reg := engine.NewRegistry()
	reg.Register("keyword", keywordScorer{})
	reg.RegisterFamily("model", "test family", func(_ context.Context, arg string) (engine.Scorer, error) {
		return nil, errors.New("model " + arg + " will not load")
	})
	require.NoError(t, reg.Allow("model:broken"))
	eng, err := engine.New(engine.Config{Registry: reg, Store: engine.NewMemoryStore(time.Minute, 1<<20, nil), Tokens: tok})
	require.NoError(t, err)
	text := "one\ntwo needle\nthree\n"
	prune := func(scorer string) (*engine.Result, error) {
		return eng.Prune(ctx, &engine.Request{Text: text, GoalHint: "needle", SourceType: engine.SourceDocs, Scorer: scorer, Options: opts(0.5, 0)})
	}

	res, err := prune("model:broken")
	require.NoError(t, err)
	assert.Equal(t, text, res.PrunedText)
	assert.Equal(t, []string{engine.WarnScorerError}, res.Warnings)
	assert.True(t, res.Stats.UsedFallback)
	assert.Equal(t, "model:broken", res.ScorerName)
	assert.Contains(t, res.FallbackError, "model broken will not load")
	rec, err := eng.Recover(ctx, res.PruneID, []engine.Range{{StartLine: 1, EndLine: 3}}, false)
	require.NoError(t, err)
	assert.Equal(t, text, rec.RawText)

	_, err = prune("model:other")
	assert.ErrorIs(t, err, engine.ErrScorerNotAllowed)
	_, err = prune("nope")
	assert.ErrorIs(t, err, engine.ErrUnknownScorer)
}
