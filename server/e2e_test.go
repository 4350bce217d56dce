package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mcp-pruner/mcp-pruner/benchmarks"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The end-to-end tests build the real binary once and talk to it over HTTP and stdio as
// clients do. They are skipped with -short.

var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

func moduleRoot(t testing.TB) string {
	t.Helper()
	root, err := benchmarks.ModuleRoot("")
	require.NoError(t, err)
	return root
}

// pruner builds cmd/pruner into a temporary directory (once per test run).
func pruner(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test builds the binary; skipped with -short")
	}
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "pruner-e2e-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "pruner")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/pruner")
		cmd.Dir = moduleRoot(t)
		out, err := cmd.CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	require.NoError(t, binErr)
	return binPath
}

var addrRe = regexp.MustCompile(`msg=listening addr=(\S+)`)

// served is a running "pruner serve".
type served struct {
	url    string
	cmd    *exec.Cmd
	stderr *syncBuffer
	done   chan error
}

type syncBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{} // closed and replaced on every write
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
	return s.b.Write(p)
}

// waitFor blocks until the buffer contains sub (true) or the timeout passes (false): log
// lines reach the buffer asynchronously, after the HTTP answer.
func (s *syncBuffer) waitFor(sub string, timeout time.Duration) bool {
	deadline := time.After(timeout)
	for {
		s.mu.Lock()
		if strings.Contains(s.b.String(), sub) {
			s.mu.Unlock()
			return true
		}
		if s.changed == nil {
			s.changed = make(chan struct{})
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			return false
		}
	}
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startServe runs pruner serve on a free loopback port and waits for its "listening" log.
// Cleanup sends SIGTERM and checks the process exits 0.
func startServe(t *testing.T, env []string, args ...string) *served {
	t.Helper()
	bin := pruner(t)
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	pr, pw := io.Pipe()
	s := &served{cmd: cmd, stderr: &syncBuffer{}, done: make(chan error, 1)}
	cmd.Stderr = pw
	require.NoError(t, cmd.Start())
	go func() { s.done <- cmd.Wait(); pw.Close() }()
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			s.stderr.Write([]byte(line + "\n"))
			if m := addrRe.FindStringSubmatch(line); m != nil && !sent {
				addr <- m[1]
				sent = true
			}
		}
		close(addr)
	}()
	a, ok := <-addr
	require.True(t, ok, "server exited before listening:\n%s", s.stderr.String())
	s.url = "http://" + a
	t.Cleanup(func() {
		require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
		select {
		case err := <-s.done:
			assert.NoError(t, err, "exit status after SIGTERM; stderr:\n%s", s.stderr.String())
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Errorf("server did not stop after SIGTERM")
		}
	})
	return s
}

// The seed's §10 curl bodies, verbatim.
const (
	seed101 = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
	seed102 = `{
    "jsonrpc":"2.0",
    "id":2,
    "method":"tools/call",
    "params":{
      "name":"prune_text",
      "arguments":{
        "text":"L1\nL2\nL3\nL4",
        "goal_hint":"garder L1",
        "source_type":"docs",
        "options":{
          "max_prune_ratio":0.75,
          "min_keep_lines":1,
          "timeout_ms":1500,
          "annotate_lines":true,
          "include_markers":true
        }
      }
    }
  }`
	seed103 = `{
    "jsonrpc":"2.0",
    "id":3,
    "method":"tools/call",
    "params":{
      "name":"recover_text",
      "arguments":{
        "prune_id":"prn_...",
        "ranges":[{"start_line":1,"end_line":50}],
        "include_line_numbers":true
      }
    }
  }`
)

func TestE2ESeedExamples(t *testing.T) {
	s := startServe(t, nil)
	url := s.url + "/rpc"

	_, b := post(t, url, seed101)
	var list struct {
		Tools []struct{ Name string }
	}
	require.NoError(t, json.Unmarshal(decodeRPC(t, b).Result, &list))
	require.Len(t, list.Tools, 3)
	assert.Equal(t, "prune_text", list.Tools[0].Name)

	_, b = post(t, url, seed102)
	assert.Contains(t, string(b), "1│ L1", "UTF-8 is not ASCII-escaped")
	var res engine.Result
	toolPayload(t, decodeRPC(t, b), &res)
	require.Regexp(t, pruneIDRe, res.PruneID)
	assert.Equal(t, 4, res.Stats.OriginalLines)
	assert.GreaterOrEqual(t, res.Stats.KeptLines, 1)
	assert.LessOrEqual(t, res.Stats.PrunedRatio, 0.75)

	// §10.3 with the prune_id from §10.2 substituted for "prn_...".
	_, b = post(t, url, strings.Replace(seed103, "prn_...", res.PruneID, 1))
	var rec engine.Recovery
	toolPayload(t, decodeRPC(t, b), &rec)
	assert.Equal(t, "1│ L1\n2│ L2\n3│ L3\n4│ L4", rec.RawText)
	assert.Equal(t, res.PruneID, rec.Metadata.PruneID)

	// §10.3 verbatim: "prn_..." is not an id the server issued.
	_, b = post(t, url, seed103)
	r := decodeRPC(t, b)
	require.NotNil(t, r.Error)
	assert.Equal(t, int64(-32004), r.Error.Code)

	resp, err := http.Get(s.url + "/health")
	require.NoError(t, err)
	var h map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&h))
	resp.Body.Close()
	assert.Equal(t, "healthy", h["status"])
	assert.Equal(t, true, h["model_loaded"])
}

func TestE2EErrorCodes(t *testing.T) {
	s := startServe(t, nil)
	url := s.url + "/rpc"
	_, b := post(t, url, seed102)
	var res engine.Result
	toolPayload(t, decodeRPC(t, b), &res)
	tests := []struct {
		name string
		body string
		code int64
	}{
		{name: "malformed JSON", body: `{"jsonrpc":"2.0",`, code: -32700},
		{name: "invalid request", body: `{"jsonrpc":"2.0","id":1,"method":null}`, code: -32600},
		{name: "unknown method", body: `{"jsonrpc":"2.0","id":1,"method":"summarise"}`, code: -32601},
		{name: "unknown tool", body: callBody("1", "summarise", `{}`), code: -32602},
		{name: "wrong type", body: callBody("1", "prune_text", strings.Replace(pruneArgs, `true`, `"yes"`, 1)), code: -32602},
		{name: "unknown scorer", body: callBody("1", "prune_text", strings.Replace(pruneArgs, `{"text"`, `{"scorer":"gpt","text"`, 1)), code: -32602},
		{name: "prune_id not found", body: callBody("1", "recover_text", `{"prune_id":"prn_0","ranges":[{"start_line":1,"end_line":1}],"include_line_numbers":true}`), code: -32004},
		{name: "invalid range", body: callBody("1", "recover_text", fmt.Sprintf(`{"prune_id":%q,"ranges":[{"start_line":5,"end_line":9}],"include_line_numbers":true}`, res.PruneID)), code: -32005},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, b := post(t, url, tc.body)
			assert.Equal(t, http.StatusOK, status)
			r := decodeRPC(t, b)
			require.NotNil(t, r.Error, "%s", b)
			assert.Equal(t, tc.code, r.Error.Code, r.Error.Message)
		})
	}
	assert.True(t, s.stderr.waitFor("error_code=-32005", 10*time.Second), "tool errors are logged with their code:\n%s", s.stderr.String())
}

func TestE2EOversizedAndBodyLimit(t *testing.T) {
	s := startServe(t, nil, "--max-input-chars", "100", "--max-body-bytes", "4096")
	url := s.url + "/rpc"
	text := strings.Repeat("line of text\n", 10) // 130 characters
	_, b := post(t, url, callBody("1", "prune_text", fmt.Sprintf(`{"text":%q,"goal_hint":"x","source_type":"logs","options":{"max_prune_ratio":0.5,"min_keep_lines":1,"timeout_ms":100,"annotate_lines":false,"include_markers":true}}`, text)))
	var res engine.Result
	toolPayload(t, decodeRPC(t, b), &res)
	assert.Equal(t, text, res.PrunedText)
	assert.Equal(t, []string{"input_too_large"}, res.Warnings)
	assert.True(t, res.Stats.UsedFallback)
	assert.True(t, s.stderr.waitFor("fallback=input_too_large", 10*time.Second), "fallbacks are logged with their reason")

	_, b = post(t, url, callBody("2", "prune_text", fmt.Sprintf(`{"text":%q}`, strings.Repeat("x", 5000))))
	r := decodeRPC(t, b)
	require.NotNil(t, r.Error)
	assert.Equal(t, "input_too_large", r.Error.Message)
}

func TestE2EConcurrentClients(t *testing.T) {
	s := startServe(t, nil)
	url := s.url + "/rpc"
	const clients = 16
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			text := fmt.Sprintf("# client %d\n", c) + codeText(300)
			args := must(json.Marshal(map[string]any{"text": text, "goal_hint": "where is parse_header defined", "source_type": "code",
				"options": engine.DefaultOptions()}))
			for i := range 5 {
				_, b, err := postRaw(url, callBody(fmt.Sprint(i), "prune_text", string(args)))
				var r struct {
					Error  any
					Result struct{ StructuredContent engine.Result }
				}
				if err != nil || json.Unmarshal(b, &r) != nil || r.Error != nil {
					errs <- fmt.Errorf("client %d: %v %.300s", c, err, b)
					return
				}
				_, b, err = postRaw(url, callBody("9", "recover_text", fmt.Sprintf(`{"prune_id":%q,"ranges":[{"start_line":1,"end_line":1}],"include_line_numbers":false}`, r.Result.StructuredContent.PruneID)))
				if err != nil || !bytes.Contains(b, []byte(fmt.Sprintf("# client %d", c))) {
					errs <- fmt.Errorf("client %d: recovered someone else's text: %v %.300s", c, err, b)
					return
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

func TestE2EStdio(t *testing.T) {
	bin := pruner(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "stdio")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())

	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 1<<20), 1<<24)
	send := func(msg string) {
		var b bytes.Buffer
		require.NoError(t, json.Compact(&b, []byte(msg)))
		_, err := stdin.Write(append(b.Bytes(), '\n'))
		require.NoError(t, err)
	}
	// read returns the next message; every stdout line must be a JSON-RPC message.
	read := func() rpcResp {
		require.True(t, lines.Scan(), "stdout closed; stderr:\n%s", stderr.String())
		return decodeRPC(t, lines.Bytes())
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`)
	r := read()
	require.Nil(t, r.Error)
	assert.Contains(t, string(r.Result), `"name":"mcp-pruner"`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	r = read()
	assert.Contains(t, string(r.Result), `"prune_text"`)
	assert.NotContains(t, string(r.Result), `"recover_range"`)
	send(seed102)
	r = read()
	assert.JSONEq(t, "2", string(r.ID))
	var res engine.Result
	toolPayload(t, r, &res)
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"recover_range","arguments":{"prune_id":%q,"ranges":[{"start_line":2,"end_line":2}],"include_line_numbers":true}}}`, res.PruneID))
	r = read()
	var rec engine.Recovery
	toolPayload(t, r, &rec)
	assert.Equal(t, "2│ L2", rec.RawText)
	send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"recover_text","arguments":{"prune_id":"prn_0","ranges":[],"include_line_numbers":true}}}`)
	// A tool's errors are results with isError over MCP: {"error": {code, message, data}}.
	toolErr := func(r rpcResp) rpcResp {
		t.Helper()
		require.Nil(t, r.Error)
		var res struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		require.NoError(t, json.Unmarshal(r.Result, &res))
		require.True(t, res.IsError, "%s", r.Result)
		return decodeRPC(t, []byte(res.Content[0].Text))
	}
	r = toolErr(read())
	require.NotNil(t, r.Error)
	assert.Equal(t, int64(-32004), r.Error.Code)
	assert.Equal(t, "prune_id_not_found", r.Error.Data["code"])
	send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"prune_text","arguments":{"text":[]}}}`)
	r = toolErr(read())
	require.NotNil(t, r.Error)
	assert.Equal(t, int64(-32602), r.Error.Code)

	require.NoError(t, stdin.Close())
	require.NoError(t, cmd.Wait(), "stderr:\n%s", stderr.String())
	assert.False(t, lines.Scan(), "nothing but answers on stdout: %q", lines.Text())
	assert.Contains(t, stderr.String(), "tool=prune_text", "logs go to stderr")
}

func TestE2EConfigErrors(t *testing.T) {
	bin := pruner(t)
	tests := []struct {
		name string
		env  []string
		args []string // after "serve" and, unless the case is about the port, "--port 0"
		want string
	}{
		// A flag wins over its variable, so the port's own variable is checked without --port.
		{name: "bad port env", env: []string{"MCP_PRUNER_PORT=eighty"}, args: []string{"--host", "127.0.0.1"}, want: "MCP_PRUNER_PORT"},
		{name: "bad ttl env", env: []string{"MCP_PRUNER_PRUNE_ID_TTL_S=0"}, want: "MCP_PRUNER_PRUNE_ID_TTL_S"},
		{name: "bad max chars env", env: []string{"MCP_PRUNER_MAX_INPUT_CHARS=-3"}, want: "MCP_PRUNER_MAX_INPUT_CHARS"},
		{name: "non-loopback without token", args: []string{"--host", "0.0.0.0"}, want: "--auth-token"},
		{name: "non-loopback env without token", env: []string{"MCP_PRUNER_HOST=0.0.0.0"}, want: "--auth-token"},
		{name: "unknown scorer", args: []string{"--scorer", "nope"}, want: "--scorer"},
		{name: "bad log level", args: []string{"--log-level", "loud"}, want: "--log-level"},
		{name: "unknown family in --allow-scorers", args: []string{"--allow-scorers", "nofam:x"}, want: "--allow-scorers"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"serve", "--port", "0"}
			if slices.ContainsFunc(tc.env, func(e string) bool { return strings.HasPrefix(e, "MCP_PRUNER_PORT=") }) {
				args = []string{"serve"}
			}
			// A server that starts after all is stopped, not waited on for ever.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, append(args, tc.args...)...)
			cmd.Env = append(os.Environ(), tc.env...)
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			require.True(t, errors.As(err, &ee), "want a start-up failure, got %v: %s", err, out)
			assert.Equal(t, 2, ee.ExitCode(), "%s", out)
			assert.Contains(t, string(out), tc.want)
		})
	}
}

func TestE2EAuthToken(t *testing.T) {
	s := startServe(t, []string{"MCP_PRUNER_AUTH_TOKEN=tok-123"})
	status, _ := post(t, s.url+"/rpc", seed101)
	assert.Equal(t, http.StatusUnauthorized, status)
	status, b := post(t, s.url+"/rpc", seed101, "Authorization", "Bearer tok-123")
	assert.Equal(t, http.StatusOK, status)
	assert.Nil(t, decodeRPC(t, b).Error)
}
