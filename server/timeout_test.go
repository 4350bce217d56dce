package server_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// TestRPCTimeoutMSBound: timeout_ms is accepted up to engine.MaxTimeoutMS; past it the call
// is -32602 on options.timeout_ms, before it queues for a prune slot. Values from ~9.2e12 on
// wrapped when made a time.Duration: to a negative wait (an instant timeout) or, as
// 18446744073710 does, to a positive 0.45 ms that the queue passed on as a valid timeout.
func TestRPCTimeoutMSBound(t *testing.T) {
	env := newEnv(t, nil)
	url := env.http.URL + "/rpc"
	args := func(text string, timeout int64) string {
		return strings.Replace(strings.Replace(pruneArgs, `1500`, fmt.Sprint(timeout), 1), `"L1\nL2\nL3\nL4"`, fmt.Sprintf("%q", text), 1)
	}
	text := codeText(200)
	for _, tc := range []struct {
		name    string
		timeout int64
		refused bool
	}{
		{name: "the maximum", timeout: engine.MaxTimeoutMS},
		{name: "one past the maximum", timeout: engine.MaxTimeoutMS + 1, refused: true},
		{name: "wraps to a positive duration", timeout: 18_446_744_073_710, refused: true},
		{name: "wraps to a negative duration", timeout: 9_007_199_254_740_991, refused: true},
		{name: "largest int64", timeout: 1<<63 - 1, refused: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, b := post(t, url, callBody("1", "prune_text", args(text, tc.timeout)))
			r := decodeRPC(t, b)
			if !tc.refused {
				var res engine.Result
				toolPayload(t, r, &res)
				assert.False(t, res.Stats.UsedFallback, "warnings: %v", res.Warnings)
				return
			}
			require.NotNil(t, r.Error, "body: %s", b)
			assert.Equal(t, int64(-32602), r.Error.Code)
			assert.Equal(t, "invalid options.timeout_ms: must be an integer <= 2147483647 (about 24.8 days)", r.Error.Message)
			assert.Equal(t, map[string]any{"code": "invalid_params", "field": "options.timeout_ms"}, r.Error.Data)
		})
	}
	t.Run("size is checked first", func(t *testing.T) {
		big := strings.Repeat("x\n", 6000) // over newEnv's 10,000 characters
		_, b := post(t, url, callBody("1", "prune_text", args(big, 1<<62)))
		var res engine.Result
		toolPayload(t, decodeRPC(t, b), &res)
		assert.Equal(t, big, res.PrunedText)
		assert.Equal(t, []string{engine.WarnInputTooLarge}, res.Warnings)
	})
}
