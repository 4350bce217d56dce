package swepruner

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/scorertest"
)

// fakeServer implements SWE-Pruner's published POST /prune contract with a toy model: every
// token of a (Python splitlines) line that mentions a query word scores 0.9, others 0.1;
// kept_frags follow the reference rule (mean >= threshold, one-line gaps filled).
type fakeServer struct {
	mode string // "", "bpe", "kept-only", "misspelt", "500", "badjson", "error", "slow", "kept-out-of-range"
}

func (f fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/prune" {
		http.NotFound(w, r)
		return
	}
	var req pruneRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusUnprocessableEntity)
		return
	}
	switch f.mode {
	case "500":
		http.Error(w, "boom", http.StatusInternalServerError)
		return
	case "badjson":
		w.Write([]byte(`{"score": `))
		return
	case "error":
		json.NewEncoder(w).Encode(map[string]any{"error_msg": "CUDA out of memory"})
		return
	case "slow":
		<-r.Context().Done()
		return
	}
	words := strings.Fields(strings.ToLower(req.Query))
	var tokens [][2]any
	kept := []int{}
	for i, line := range pySplitLines(req.Code) {
		score := 0.1
		for _, w := range words {
			if strings.Contains(strings.ToLower(line.text), w) {
				score = 0.9
			}
		}
		if score >= req.Threshold {
			kept = append(kept, i+1)
		}
		for _, t := range tokenize(line.text + line.sep) {
			if f.mode == "bpe" {
				t = spellByteLevel(t)
			}
			if f.mode == "misspelt" {
				t = strings.ToUpper(t)
			}
			tokens = append(tokens, [2]any{t, score})
		}
	}
	for i := 1; i < len(kept); i++ {
		if kept[i]-kept[i-1] == 2 {
			kept = append(kept[:i], append([]int{kept[i] - 1}, kept[i:]...)...)
			i++
		}
	}
	resp := map[string]any{"score": 0.5, "pruned_code": "", "token_scores": tokens, "kept_frags": kept,
		"origin_token_cnt": len(tokens), "left_token_cnt": 0, "model_input_token_cnt": len(tokens), "error_msg": nil}
	switch f.mode {
	case "kept-only":
		delete(resp, "token_scores")
	case "kept-out-of-range":
		resp["kept_frags"] = []int{1 << 20}
	}
	json.NewEncoder(w).Encode(resp)
}

type pyLine struct{ text, sep string }

// pySplitLines is Python's str.splitlines(keepends) split into text and separator.
func pySplitLines(code string) []pyLine {
	starts := engine.PyLineStarts(code)
	var out []pyLine
	for i, s := range starts {
		end := len(code)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		seg := code[s:end]
		text := strings.TrimRightFunc(seg, func(r rune) bool {
			return strings.ContainsRune("\r\n\v\f\x1c\x1d\x1e\u0085\u2028\u2029", r)
		})
		out = append(out, pyLine{text: text, sep: seg[len(text):]})
	}
	return out
}

// tokenize splits into word runs and single other characters.
func tokenize(s string) []string {
	var out []string
	start := -1
	for i, r := range s {
		word := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_'
		switch {
		case word && start < 0:
			start = i
		case !word:
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
			out = append(out, string(r))
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

func spellByteLevel(s string) string {
	toRune := map[byte]rune{}
	for r, b := range byteOf {
		toRune[b] = r
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteRune(toRune[s[i]])
	}
	return b.String()
}

func newScorer(t *testing.T, mode string) *Scorer {
	t.Helper()
	srv := httptest.NewServer(fakeServer{mode: mode})
	t.Cleanup(srv.Close)
	s, err := New(Config{URL: srv.URL})
	require.NoError(t, err)
	return s
}

func TestContract(t *testing.T) {
	srv := httptest.NewServer(fakeServer{})
	t.Cleanup(srv.Close)
	scorertest.Run(t, func() engine.Scorer {
		s, err := New(Config{URL: srv.URL + "/"})
		require.NoError(t, err)
		return s
	})
}

var lines = []string{
	"def load(path):",
	"    with open(path) as f:",
	"        return parse(f.read())",
	"",
	"def parse(text):",
	"    raise ValueError('empty')",
	"",
	"def unrelated():",
	"    pass",
}

func TestLineScores(t *testing.T) {
	tests := []struct {
		name string
		mode string
		want []float64
	}{
		// Lines 1, 3 and 5 mention "load"/"parse"; 2 and 4 are one-line gaps the server fills,
		// lifted to the threshold (0.5); the empty line 4 has no tokens of its own.
		{name: "token scores", want: []float64{0.9, 0.5, 0.9, 0.5, 0.9, 0.1, 0, 0.1, 0.1}},
		{name: "byte-level BPE spelling", mode: "bpe", want: []float64{0.9, 0.5, 0.9, 0.5, 0.9, 0.1, 0, 0.1, 0.1}},
		{name: "kept lines only", mode: "kept-only", want: []float64{1, 1, 1, 1, 1, 0, 0, 0, 0}},
		{name: "tokens that do not spell the code fall back to kept lines", mode: "misspelt", want: []float64{1, 1, 1, 1, 1, 0, 0, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := newScorer(t, tt.mode).Score(context.Background(), &engine.ScoreRequest{Lines: lines, Goal: "load parse"})
			require.NoError(t, err)
			assert.InDeltaSlice(t, tt.want, resp.Scores, 1e-9)
		})
	}
}

// Python's splitlines also breaks at \r, \f and U+2028: kept line numbers must still land
// on the right engine lines.
func TestPythonLineNumbering(t *testing.T) {
	in := []string{"a\rb", "form\ffeed", "target here", "x\u2028y", "target again"}
	resp, err := newScorer(t, "kept-only").Score(context.Background(), &engine.ScoreRequest{Lines: in, Goal: "target"})
	require.NoError(t, err)
	assert.Equal(t, []float64{0, 0, 1, 0, 1}, resp.Scores)
}

func TestFailuresAreErrors(t *testing.T) {
	tests := []struct {
		name string
		mode string
	}{
		{name: "HTTP 500", mode: "500"},
		{name: "truncated JSON", mode: "badjson"},
		{name: "server error_msg", mode: "error"},
		{name: "kept line out of range", mode: "kept-out-of-range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newScorer(t, tt.mode).Score(context.Background(), &engine.ScoreRequest{Lines: lines, Goal: "load"})
			assert.ErrorIs(t, err, ErrBadAnswer)
		})
	}
	t.Run("deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err := newScorer(t, "slow").Score(ctx, &engine.ScoreRequest{Lines: lines, Goal: "load"})
		assert.ErrorIs(t, err, context.DeadlineExceeded)
	})
	t.Run("connection refused", func(t *testing.T) {
		srv := httptest.NewServer(fakeServer{})
		srv.Close()
		s, err := New(Config{URL: srv.URL})
		require.NoError(t, err)
		_, err = s.Score(context.Background(), &engine.ScoreRequest{Lines: lines, Goal: "load"})
		assert.Error(t, err)
	})
}

// Through the engine, a dead server is a fail-open result, never a failed request.
func TestEngineFailsOpen(t *testing.T) {
	reg := engine.NewRegistry()
	reg.Register("swepruner", newScorer(t, "500"))
	e, err := engine.New(engine.Config{Registry: reg, Store: engine.NewMemoryStore(time.Minute, 1<<20, nil), Tokens: runes{}})
	require.NoError(t, err)
	text := strings.Join(lines, "\n")
	res, err := e.Prune(context.Background(), &engine.Request{Text: text, GoalHint: "load", SourceType: engine.SourceCode, Options: engine.DefaultOptions()})
	require.NoError(t, err)
	assert.True(t, res.Stats.UsedFallback)
	assert.Equal(t, []string{engine.WarnScorerError}, res.Warnings)
	assert.Equal(t, text, res.PrunedText)
}

type runes struct{}

func (runes) Count(s string) int { return len([]rune(s)) }

func TestNewValidates(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{name: "base URL", cfg: Config{URL: "http://gpu:8000"}, want: "http://gpu:8000/prune"},
		{name: "full endpoint", cfg: Config{URL: "https://gpu/api/prune"}, want: "https://gpu/api/prune"},
		{name: "no scheme", cfg: Config{URL: "gpu:8000"}},
		{name: "bad threshold", cfg: Config{URL: "http://gpu", Threshold: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(tt.cfg)
			if tt.want == "" {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, s.endpoint)
		})
	}
}
