package server_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// TestRPCRecoverLimit: a recover_text call whose ranges ask for the same text thousands of
// times (a 66 KB request over a 100 KB text built a 406 MB answer) is answered -32005
// invalid_range with a detail naming the limit; overlapping ranges within it are answered
// as before, byte for byte.
func TestRPCRecoverLimit(t *testing.T) {
	env := newEnvChars(t, 200_000, nil)
	url := env.http.URL + "/rpc"
	text := strings.Repeat(strings.Repeat("x", 99)+"\n", 1000) // 100 KB, 1,000 lines
	args := must(json.Marshal(map[string]any{"text": text, "goal_hint": "y", "source_type": "code",
		"options": engine.Options{MaxPruneRatio: 0.5, TimeoutMS: 5000, IncludeMarkers: true}}))
	_, b := post(t, url, callBody("1", "prune_text", string(args)))
	var pr engine.Result
	toolPayload(t, decodeRPC(t, b), &pr)
	require.NotEmpty(t, pr.PruneID)

	recoverBody := func(ranges string) string {
		return callBody("2", "recover_text", fmt.Sprintf(`{"prune_id":%q,"include_line_numbers":false,"ranges":[%s]}`, pr.PruneID, ranges))
	}
	t.Run("amplification", func(t *testing.T) {
		req := recoverBody(strings.TrimSuffix(strings.Repeat(`{"start_line":1,"end_line":1000},`, 2000), ","))
		_, b := post(t, url, req)
		assert.Less(t, len(b), 1000, "the answer is an error, not the text 2,000 times")
		want := `{"jsonrpc":"2.0","id":2,"error":{"code":-32005,"message":"invalid_range","data":{"code":"invalid_range",` +
			`"range":{"start_line":1,"end_line":1000},"max_line":1000,"detail":"the ranges ask for more than 1048576 bytes ` +
			`(lines asked again count again): at most 2 times the whole text (100001 bytes here), or 1048576 bytes for a smaller text"}}}` + "\n"
		assert.Equal(t, want, string(b))
	})
	t.Run("overlapping windows within the limit", func(t *testing.T) {
		_, b := post(t, url, recoverBody(`{"start_line":1,"end_line":600},{"start_line":400,"end_line":1200},{"start_line":990,"end_line":990}`))
		var rec engine.Recovery
		toolPayload(t, decodeRPC(t, b), &rec)
		lines := engine.SplitLines(text)
		want := strings.Join(lines[:600], "\n") + "\n" + strings.Join(lines[399:], "\n") + "\n" + lines[989]
		assert.Equal(t, want, rec.RawText)
	})
}
