// Package swepruner is a scorer that asks a SWE-Pruner-compatible HTTP server (POST /prune,
// the API of github.com/Ayanami1314/swe-pruner) for its per-token scores and kept lines and
// turns them into line scores, so an operator with a GPU running the real SWE-Pruner model
// gets it behind this project's markers, recovery and guarantees. Every failure (timeout,
// refused connection, non-2xx, bad JSON, an answer that does not fit the text) is an error:
// the engine then fails open.
//
// It imports engine and the standard library only.
package swepruner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// DefaultThreshold is SWE-Pruner's own default keep threshold.
const DefaultThreshold = 0.5

// maxResponseBytes bounds the answer: token scores for a 2M-character text fit easily.
const maxResponseBytes = 256 << 20

// ErrBadAnswer is wrapped by errors about an answer the scorer cannot use.
var ErrBadAnswer = errors.New("swepruner: unusable answer")

// Config configures a Scorer. URL is the server's base URL (".../prune" is appended unless
// it already ends so).
type Config struct {
	URL       string
	Threshold float64 // sent to the server and used as the engine's keep threshold; 0 means 0.5
	// HTTPClient defaults to a client without a global timeout: the request's context
	// carries the engine's deadline.
	HTTPClient *http.Client
}

// Scorer calls a SWE-Pruner server. It holds no per-call state and is safe for concurrent use.
type Scorer struct {
	endpoint  string
	threshold float64
	client    *http.Client
}

var (
	_ engine.Scorer    = (*Scorer)(nil)
	_ engine.Describer = (*Scorer)(nil)
)

// New checks cfg and returns a Scorer. It does not contact the server.
func New(cfg Config) (*Scorer, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("swepruner: URL %q: want http(s)://host[:port][/path]", cfg.URL)
	}
	if !strings.HasSuffix(u.Path, "/prune") {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/prune"
	}
	th := cfg.Threshold
	if th == 0 {
		th = DefaultThreshold
	}
	if !(th > 0 && th <= 1) {
		return nil, fmt.Errorf("swepruner: threshold %v: want (0, 1]", th)
	}
	c := cfg.HTTPClient
	if c == nil {
		c = &http.Client{}
	}
	return &Scorer{endpoint: u.String(), threshold: th, client: c}, nil
}

// ScoresElsewhere is true: the model server does the work (engine.Elsewhere).
func (s *Scorer) ScoresElsewhere() bool { return true }

// Describe reports the threshold the server prunes at.
func (s *Scorer) Describe() engine.ScorerInfo {
	return engine.ScorerInfo{Name: "swepruner", Description: "SWE-Pruner model server at " + s.endpoint, Where: "in-process", Threshold: s.threshold}
}

// pruneRequest and pruneResponse are SWE-Pruner's POST /prune body and answer.
type pruneRequest struct {
	Query                string  `json:"query"`
	Code                 string  `json:"code"`
	Threshold            float64 `json:"threshold"`
	AlwaysKeepFirstFrags bool    `json:"always_keep_first_frags"`
	ChunkOverlapTokens   int     `json:"chunk_overlap_tokens"`
}

type pruneResponse struct {
	Score       float64           `json:"score"`
	PrunedCode  string            `json:"pruned_code"`
	TokenScores []json.RawMessage `json:"token_scores"`
	KeptFrags   []int             `json:"kept_frags"`
	ErrorMsg    *string           `json:"error_msg"`
}

// Score sends the lines to the server and maps its answer back onto them.
func (s *Scorer) Score(ctx context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	if len(req.Lines) == 0 {
		return &engine.ScoreResponse{Scores: []float64{}}, nil
	}
	// The server sees exactly these lines: JSON would replace invalid bytes anyway, and
	// doing it here keeps our line offsets equal to the server's.
	lines := make([]string, len(req.Lines))
	for i, l := range req.Lines {
		lines[i] = validUTF8(l)
	}
	code := strings.Join(lines, "\n")
	body, err := json.Marshal(pruneRequest{Query: validUTF8(req.Goal), Code: code, Threshold: s.threshold, ChunkOverlapTokens: 50})
	if err != nil {
		return nil, fmt.Errorf("swepruner: %w", err)
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, s.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("swepruner: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	resp, err := s.client.Do(hreq)
	if err != nil {
		return nil, fmt.Errorf("swepruner: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		return nil, fmt.Errorf("%w: HTTP %d", ErrBadAnswer, resp.StatusCode)
	}
	var pr pruneResponse
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxResponseBytes)).Decode(&pr); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadAnswer, err)
	}
	if pr.ErrorMsg != nil && *pr.ErrorMsg != "" {
		return nil, fmt.Errorf("%w: server error: %s", ErrBadAnswer, *pr.ErrorMsg)
	}
	scores, err := lineScores(lines, code, &pr, s.threshold)
	if err != nil {
		return nil, err
	}
	return &engine.ScoreResponse{Scores: scores}, nil
}

// validUTF8 replaces each invalid byte with U+FFFD, as encoding/json does.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
