package server_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/server"
)

// TestRPCTextLargerThanTheStore: on the wire, a text the recovery store cannot hold comes back
// unchanged with warning recovery_unavailable, and its prune_id answers -32004 as the warning
// says, instead of markers pointing at a prune_id that never recovers.
func TestRPCTextLargerThanTheStore(t *testing.T) {
	eng, _ := newEngineStore(t, 10_000, engine.NewMemoryStore(time.Minute, 2000, nil))
	env := newEnvEngine(t, eng, nil)
	text := codeText(120) // about 3 KB
	args := fmt.Sprintf(`{"text":%q,"goal_hint":"parse_header","source_type":"code","options":{"max_prune_ratio":0.9,"min_keep_lines":1,"timeout_ms":1500,"annotate_lines":false,"include_markers":true}}`, text)
	status, b := post(t, env.http.URL+"/rpc", callBody("1", "prune_text", args))
	require.Equal(t, http.StatusOK, status)
	var res engine.Result
	toolPayload(t, decodeRPC(t, b), &res)
	assert.Equal(t, text, res.PrunedText)
	assert.Empty(t, res.Annotations)
	assert.True(t, res.Stats.UsedFallback)
	assert.Equal(t, []string{"recovery_unavailable"}, res.Warnings)

	_, b = post(t, env.http.URL+"/rpc", callBody("2", "recover_text", fmt.Sprintf(`{"prune_id":%q,"ranges":[{"start_line":1,"end_line":1}],"include_line_numbers":false}`, res.PruneID)))
	r := decodeRPC(t, b)
	require.NotNil(t, r.Error)
	assert.Equal(t, int64(-32004), r.Error.Code)
}

// TestStartupWarnsOfASmallStore: a recovery store that cannot hold a text at the input limit is
// a warning in the start-up log; one that can is not mentioned.
func TestStartupWarnsOfASmallStore(t *testing.T) {
	for _, tc := range []struct {
		name       string
		storeBytes int64
		warn       bool
	}{
		{name: "store smaller than the input limit", storeBytes: 2000, warn: true},
		{name: "store that holds the input limit", storeBytes: 1 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng, _ := newEngineStore(t, 10_000, engine.NewMemoryStore(time.Minute, tc.storeBytes, nil))
			var logged syncBuffer
			srv, err := server.New(server.Config{Engine: eng, Logger: slog.New(slog.NewTextHandler(&logged, nil))})
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			require.NoError(t, srv.RunStdio(ctx, strings.NewReader(""), io.Discard))
			const warning = `level=WARN msg="recovery store smaller than the input limit`
			if !tc.warn {
				assert.NotContains(t, logged.String(), warning)
				return
			}
			assert.Contains(t, logged.String(), warning)
			assert.Contains(t, logged.String(), "max_input_chars=10000")
			assert.Contains(t, logged.String(), fmt.Sprintf("largest_stored_text_bytes=%d", 2000-engine.StoreEntryOverhead-len(engine.NewPruneID())))
		})
	}
}
