package main

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAnswerError: the load generator counts a real prune's answer as a success, and a
// fail-open result, a JSON-RPC error, a non-200 status or a truncated answer as errors,
// whatever the pruned text itself says about used_fallback.
func TestAnswerError(t *testing.T) {
	stop, addr, err := startInProcess()
	require.NoError(t, err)
	defer stop()
	url := "http://" + addr + "/rpc"
	var buf bytes.Buffer
	require.NoError(t, oneRequest(http.DefaultClient, url, requestBody(200), &buf), "a real prune succeeds")
	ok := bytes.Clone(buf.Bytes())
	require.Contains(t, string(ok), `"used_fallback":false`)

	// The same answer, failed open: the stats say so in structuredContent (the last copy).
	last := bytes.LastIndex(ok, []byte(`"used_fallback":false`))
	failed := append(append(bytes.Clone(ok[:last]), `"used_fallback":true`...), ok[last+len(`"used_fallback":false`):]...)
	assert.ErrorContains(t, answerError(http.StatusOK, failed), "fail-open")
	// A text that quotes the key does not fool the check: inside the escaped payload it
	// reads \"used_fallback\":false.
	quoting := bytes.Replace(failed, []byte(`"text":"`), []byte(`"text":"\"used_fallback\":false `), 1)
	assert.ErrorContains(t, answerError(http.StatusOK, quoting), "fail-open")

	assert.NoError(t, answerError(http.StatusOK, ok))
	assert.ErrorContains(t, answerError(http.StatusOK, ok[:last]), "fail-open", "truncated before the stats")
	assert.ErrorContains(t, answerError(http.StatusServiceUnavailable, ok), "HTTP 503")
	assert.ErrorContains(t, answerError(http.StatusOK, []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad"}}`)), "not a result")
}
