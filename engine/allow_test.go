package engine_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
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
