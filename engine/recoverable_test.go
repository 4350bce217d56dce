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

var errStoreDown = errors.New("store down")

// downStore stands for a shared store that refuses every text.
type downStore struct{ engine.Store }

func (downStore) Put(context.Context, string, string) error { return errStoreDown }

// TestPruneCutsOnlyWhatItCanGiveBack: a prune whose original the store refuses (larger than
// the whole store, or a store that fails) comes back unchanged with recovery_unavailable,
// rather than cut with markers whose prune_id is never found. A text that fits the same small
// store is cut and recovers as before.
func TestPruneCutsOnlyWhatItCanGiveBack(t *testing.T) {
	const storeBytes = 2000
	fits := longLines(20, map[int]string{10: "needle"})   // about 1,400 bytes
	tooBig := longLines(50, map[int]string{10: "needle"}) // about 3,500 bytes
	require.Less(t, len(fits)+engine.StoreEntryOverhead+len(engine.NewPruneID()), storeBytes)
	require.Greater(t, len(tooBig), storeBytes)
	tests := []struct {
		name     string
		store    engine.Store
		text     string
		maxChars int
		warnings []string // nil: pruned and recoverable
	}{
		{name: "fits the store", store: engine.NewMemoryStore(time.Minute, storeBytes, nil), text: fits},
		{name: "larger than the whole store", store: engine.NewMemoryStore(time.Minute, storeBytes, nil), text: tooBig,
			warnings: []string{engine.WarnRecoveryUnavailable}},
		{name: "store fails", store: downStore{engine.NewMemoryStore(time.Minute, 1<<20, nil)}, text: fits,
			warnings: []string{engine.WarnRecoveryUnavailable}},
		{name: "oversized input larger than the store", store: engine.NewMemoryStore(time.Minute, storeBytes, nil), text: tooBig, maxChars: 100,
			warnings: []string{engine.WarnInputTooLarge, engine.WarnRecoveryUnavailable}},
	}
	tok, err := tokenizer.Load(tokenizer.CL100K)
	require.NoError(t, err)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reg := engine.NewRegistry()
			reg.Register("keyword", keywordScorer{})
			eng, err := engine.New(engine.Config{Registry: reg, Store: tc.store, Tokens: tok, MaxInputChars: tc.maxChars})
			require.NoError(t, err)
			ctx := context.Background()
			req := &engine.Request{Text: tc.text, GoalHint: "needle", SourceType: engine.SourceCode, Options: opts(0.9, 0)}
			res, err := eng.Prune(ctx, req)
			require.NoError(t, err, "a store that refuses the text fails open, it is not an error")
			if tc.warnings == nil {
				require.False(t, res.Stats.UsedFallback, "warnings %v", res.Warnings)
				require.NotEmpty(t, res.Annotations, "the text is cut")
				checkResult(t, &fixture{eng: eng, tok: tok}, req, res) // every cut run recovers
				return
			}
			assert.True(t, res.Stats.UsedFallback)
			assert.Equal(t, tc.text, res.PrunedText, "nothing is cut")
			assert.NotContains(t, res.PrunedText, "⟦PRUNÉ")
			assert.Equal(t, []engine.Annotation{}, res.Annotations)
			assert.Equal(t, tc.warnings, res.Warnings)
			assert.Contains(t, res.FallbackError, "store: ", "the operator's log says why")
			want := tok.Count(tc.text)
			if tc.maxChars > 0 {
				want = (len(tc.text) + 3) / 4 // an oversized text is estimated, not counted
			}
			assert.Equal(t, want, res.Stats.TokensEstAfter)
			_, err = eng.Recover(ctx, res.PruneID, []engine.Range{{StartLine: 1, EndLine: 1}}, false)
			assert.ErrorIs(t, err, engine.ErrPruneIDNotFound, "the warning says what recover_text will answer")
		})
	}
}

// TestFallbackWithoutRoomToStore: Fallback, too, answers a text the store refuses with the
// text unchanged and recovery_unavailable added, not with an error.
func TestFallbackWithoutRoomToStore(t *testing.T) {
	tok, err := tokenizer.Load(tokenizer.CL100K)
	require.NoError(t, err)
	reg := engine.NewRegistry()
	reg.Register("keyword", keywordScorer{})
	eng, err := engine.New(engine.Config{Registry: reg, Store: engine.NewMemoryStore(time.Minute, 500, nil), Tokens: tok})
	require.NoError(t, err)
	text := longLines(20, nil)
	res, err := eng.Fallback(context.Background(), text, engine.WarnTimeout)
	require.NoError(t, err)
	assert.Equal(t, text, res.PrunedText)
	assert.True(t, res.Stats.UsedFallback)
	assert.Equal(t, []string{engine.WarnTimeout, engine.WarnRecoveryUnavailable}, res.Warnings)
}
