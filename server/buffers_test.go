package server_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pruneCall is a tools/call prune_text body over text with goal.
func pruneCall(t testing.TB, id, text, goal string) string {
	t.Helper()
	args := must(json.Marshal(map[string]any{"text": text, "goal_hint": goal, "source_type": "code", "options": engine.DefaultOptions()}))
	return callBody(id, "prune_text", string(args))
}

// postFull is postRaw that also returns the response headers.
func postFull(t testing.TB, url, body string) (http.Header, []byte) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", b)
	return resp.Header, b
}

// TestRPCBuffersDoNotLeakBetweenRequests alternates large prunes with small requests on one
// server: the body, payload and response buffers /rpc reuses must never carry bytes of an
// earlier request into a later answer.
func TestRPCBuffersDoNotLeakBetweenRequests(t *testing.T) {
	env := newEnvChars(t, 400_000, nil)
	url := env.http.URL + "/rpc"
	health := callBody("7", "health", `{}`)
	_, want := postFull(t, url, health)
	require.NotContains(t, string(want), "LEAKMARK")

	var big strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&big, "LEAKMARK_%d parse_header(\"%s\")\n", i, strings.Repeat("x", 40))
	}
	small := "a := 1\nb := parse(a)\n"
	for i := range 10 {
		h, b := postFull(t, url, pruneCall(t, strconv.Itoa(i), big.String(), "parse_header"))
		require.Contains(t, string(b), "LEAKMARK", "the large prune itself answers")
		assert.Equal(t, strconv.Itoa(len(b)), h.Get("Content-Length"))

		h, got := postFull(t, url, health)
		assert.Equal(t, string(want), string(got), "round %d: health after a large prune", i)
		assert.Equal(t, strconv.Itoa(len(got)), h.Get("Content-Length"))

		h, got = postFull(t, url, pruneCall(t, "8", small, "parse"))
		assert.NotContains(t, string(got), "LEAKMARK", "round %d: small prune after a large one", i)
		assert.Empty(t, h.Values("Transfer-Encoding"))
		assert.Equal(t, strconv.Itoa(len(got)), h.Get("Content-Length"))
		var p engine.Result
		toolPayload(t, decodeRPC(t, got), &p)
		assert.Contains(t, p.PrunedText, "b := parse(a)")
		assert.Equal(t, 2, p.Stats.OriginalLines)
	}
}

// TestRPCBuffersConcurrent runs distinct prunes at once: every answer carries its own
// request's lines and none of another's (run with -race to also check the reuse is not racy).
func TestRPCBuffersConcurrent(t *testing.T) {
	env := newEnvChars(t, 400_000, nil)
	url := env.http.URL + "/rpc"
	const workers, rounds = 8, 15
	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mark := fmt.Sprintf("worker%dmark", w)
			var text strings.Builder
			for i := range 50 + 400*w {
				fmt.Fprintf(&text, "%s_%d := value(%d)\n", mark, i, i)
			}
			args := must(json.Marshal(map[string]any{"text": text.String(), "goal_hint": mark, "source_type": "code", "options": engine.DefaultOptions()}))
			body := callBody(strconv.Itoa(w), "prune_text", string(args))
			for range rounds {
				status, b, err := postRaw(url, body)
				if err != nil || status != http.StatusOK {
					errs <- fmt.Errorf("worker %d: %d %v", w, status, err)
					return
				}
				var r rpcResp
				var res struct {
					StructuredContent engine.Result `json:"structuredContent"`
				}
				if err := json.Unmarshal(b, &r); err != nil || json.Unmarshal(r.Result, &res) != nil {
					errs <- fmt.Errorf("worker %d: bad answer %.200s", w, b)
					return
				}
				if string(r.ID) != strconv.Itoa(w) || res.StructuredContent.Stats.OriginalLines != 50+400*w {
					errs <- fmt.Errorf("worker %d: answer of another request: id %s, %d lines", w, r.ID, res.StructuredContent.Stats.OriginalLines)
					return
				}
				for o := range workers {
					if o != w && strings.Contains(string(b), fmt.Sprintf("worker%dmark", o)) {
						errs <- fmt.Errorf("worker %d: answer holds worker %d's text", w, o)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
