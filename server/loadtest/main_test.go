package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

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

// TestOpenLoopCountsTheWait: with -rate, a server slower than the rate is charged for the
// time its requests waited to be sent, as well as for answering them; a closed loop, which
// only sends when the last answer is in, sees the answering time alone.
func TestOpenLoopCountsTheWait(t *testing.T) {
	const answer = `{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"stats":{"used_fallback":false}}}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		time.Sleep(20 * time.Millisecond)
		io.WriteString(w, answer)
	}))
	defer srv.Close()
	body := []byte(`{}`)

	// One client at 200 requests/s against a server that answers 50 a second: request k is
	// due at 5(k-1) ms and sent at about 20(k-1) ms.
	open := runCell(srv.Client(), srv.URL, body, cell{clients: 1, rate: 200, budget: 200 * time.Millisecond, maxReq: 1000})
	require.Zero(t, open.errors, open.firstErr)
	require.Equal(t, 40, open.count, "requests due in the budget are all sent, late or not")
	assert.Greater(t, open.max, 400*time.Millisecond, "the last request waited about 780 ms to be sent")

	closed := runCell(srv.Client(), srv.URL, body, cell{clients: 1, budget: 200 * time.Millisecond, maxReq: 1000})
	require.Zero(t, closed.errors, closed.firstErr)
	assert.Less(t, closed.count, 15, "a closed loop sends as fast as the answers come")
	assert.Less(t, closed.p50, 100*time.Millisecond)

	start := time.Now()
	c := cell{rate: 2000}
	assert.Equal(t, start, c.due(start, 1))
	assert.Equal(t, start.Add(time.Second), c.due(start, 2001))
}
