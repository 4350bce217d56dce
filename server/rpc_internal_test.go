package server

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadBodyReservesLittleBeforeTheBytes: a declared Content-Length reserves at most
// preGrowBytes before the body arrives (a connection that sends headers and stalls held a
// megabyte), and a body larger than that is still read whole.
func TestReadBodyReservesLittleBeforeTheBytes(t *testing.T) {
	var buf bytes.Buffer
	stalled := iotest.ErrReader(io.ErrUnexpectedEOF) // headers sent, then nothing
	_, err := readBody(&buf, stalled, 1<<20)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.Less(t, buf.Cap(), 2*preGrowBytes, "not the megabyte declared")

	body := strings.Repeat("x", 3<<20)
	buf = bytes.Buffer{}
	got, err := readBody(&buf, strings.NewReader(body), int64(len(body)))
	require.NoError(t, err)
	assert.Equal(t, body, string(got))
}

// TestBatchAnswerIsBounded: once a batch's answers pass maxBatchAnswer, its remaining calls
// are answered with batch_answer_too_large and their ids, not run (32 recoveries of control
// characters made one 18 KB request a 413 MB answer); notifications stay unanswered.
func TestBatchAnswerIsBounded(t *testing.T) {
	defer func(v int) { maxBatchAnswer = v }(maxBatchAnswer)
	maxBatchAnswer = 2000
	s, err := New(Config{Engine: newTestEngine(t)})
	require.NoError(t, err)
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	post := func(body string) []byte {
		resp, err := http.Post(hs.URL+"/rpc", "application/json", strings.NewReader(body))
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return b
	}
	text := strings.Repeat("a line of text that is long enough to count\n", 60)
	args, _ := json.Marshal(map[string]any{"text": text, "goal_hint": "count", "source_type": "docs",
		"options": map[string]any{"max_prune_ratio": 0.5, "min_keep_lines": 1, "timeout_ms": 5000, "annotate_lines": false, "include_markers": true}})
	var pruned struct {
		Result struct {
			StructuredContent struct {
				PruneID string `json:"prune_id"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal(post(`{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"prune_text","arguments":`+string(args)+`}}`), &pruned))
	id := pruned.Result.StructuredContent.PruneID
	require.NotEmpty(t, id)
	recov := func(n int) string {
		return `{"jsonrpc":"2.0","id":` + strconv.Itoa(n) + `,"method":"tools/call","params":{"name":"recover_text","arguments":{"prune_id":"` + id + `","ranges":[{"start_line":1,"end_line":60}],"include_line_numbers":false}}}`
	}
	b := post("[" + recov(1) + `,{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},` + recov(3) + "]")
	var answers []struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int            `json:"code"`
			Message string         `json:"message"`
			Data    map[string]any `json:"data"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal(b, &answers), "%s", b)
	require.Len(t, answers, 3, "the notification gets no answer")
	assert.Nil(t, answers[0].Error, "the first call runs")
	assert.Contains(t, string(answers[0].Result), "a line of text")
	for i, want := range []string{"2", "3"} {
		a := answers[i+1]
		assert.Equal(t, want, string(a.ID))
		require.NotNil(t, a.Error)
		assert.Equal(t, codeInvalidRequest, a.Error.Code)
		assert.Equal(t, "batch_answer_too_large", a.Error.Data["code"])
	}
}
