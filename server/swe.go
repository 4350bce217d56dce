package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// SWEPruneRequest is SWE-Pruner's POST /prune request. source_type, scorer, path and language
// are optional extensions. threshold is read as SWE-Pruner's pydantic model reads a float
// (sweThreshold); always_keep_first_frags and chunk_overlap_tokens are accepted whatever
// they hold and have no effect (the engine scores whole lines, not token chunks).
type SWEPruneRequest struct {
	Query                *string         `json:"query"`
	Code                 *string         `json:"code"`
	Threshold            json.RawMessage `json:"threshold,omitempty"`
	AlwaysKeepFirstFrags json.RawMessage `json:"always_keep_first_frags,omitempty"`
	ChunkOverlapTokens   json.RawMessage `json:"chunk_overlap_tokens,omitempty"`
	SourceType           string          `json:"source_type,omitempty"`
	Scorer               string          `json:"scorer,omitempty"`
	Path                 string          `json:"path,omitempty"`
	Language             string          `json:"language,omitempty"`
}

// SWEPruneResponse is SWE-Pruner's POST /prune response, filled from the engine's result.
// Lines are numbered as SWE-Pruner numbers them, by Python's code.splitlines(), which also
// breaks at "\r", "\v", "\f" and a few Unicode separators (engine.PyLineStarts); an engine
// line holding such breaks stands for all the Python lines in it. kept_frags are the kept
// lines; token_scores holds one [line, score] pair per line (our scorers score lines, not
// tokens); score is the document's relevance, as SWE-Pruner's (its model's best chunk): the
// best kept line's score. The token counts are tiktoken counts of the input and of
// pruned_code, and model_input_token_cnt adds the query's. prune_id is an extension that
// recover_text accepts.
type SWEPruneResponse struct {
	Score              float64 `json:"score"`
	PrunedCode         string  `json:"pruned_code"`
	TokenScores        [][]any `json:"token_scores"`
	KeptFrags          []int   `json:"kept_frags"`
	OriginTokenCnt     int     `json:"origin_token_cnt"`
	LeftTokenCnt       int     `json:"left_token_cnt"`
	ModelInputTokenCnt int     `json:"model_input_token_cnt"`
	ErrorMsg           *string `json:"error_msg"`
	PruneID            string  `json:"prune_id"`
}

// SWEOptions are the prune options /prune uses: the engine's defaults without line-number
// prefixes (SWE-Pruner's pruned_code has none), with markers where lines were cut, and a
// deadline of SWETimeoutMS.
func SWEOptions() engine.Options {
	o := engine.DefaultOptions()
	o.AnnotateLines = false
	o.IncludeMarkers = true
	o.TimeoutMS = SWETimeoutMS
	return o
}

// SWETimeoutMS is /prune's deadline. SWE-Pruner has none (a GPU model takes seconds) and its
// clients wait 30 to 300 s, so the engine's 1.5 s, meant for an agent's loop, would fail open
// where they would have waited: 16 prunes of 0.9 MB at once on 2 cores returned 5 unchanged.
const SWETimeoutMS = 10_000

func (s *Server) servePrune(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.maxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			sweError(w, http.StatusRequestEntityTooLarge, "input_too_large: request body over the server's limit")
			return
		}
		sweError(w, http.StatusBadRequest, "reading body: "+err.Error())
		return
	}
	// 422 for a body that is not JSON as for a field of the wrong type: SWE-Pruner's server is
	// a plain FastAPI app, whose request validation answers both with 422.
	// Starlette's json.loads skips a UTF-8 byte order mark (Windows tools write one).
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	var req SWEPruneRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&req); err != nil {
		msg := "invalid JSON body: " + err.Error()
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			msg = "invalid field " + te.Field + ": " + err.Error()
		}
		sweError(w, http.StatusUnprocessableEntity, msg)
		return
	}
	if _, err := dec.Token(); err != io.EOF {
		sweError(w, http.StatusUnprocessableEntity, "invalid JSON body: more after the request object")
		return
	}
	if req.Query == nil {
		// SWE-Pruner's request model has no default for query: FastAPI answers 422.
		sweError(w, http.StatusUnprocessableEntity, "field query is required")
		return
	}
	if req.Code == nil {
		sweError(w, http.StatusUnprocessableEntity, "field code is required")
		return
	}
	threshold, ok := sweThreshold(req.Threshold)
	if !ok {
		sweError(w, http.StatusUnprocessableEntity, "invalid field threshold: want a number, got "+string(req.Threshold))
		return
	}
	st := engine.SourceCode
	if req.SourceType != "" {
		st = engine.SourceType(req.SourceType)
	}
	ctx := r.Context()
	res, err := s.tools.admitted(ctx, &engine.Request{
		Text: *req.Code, GoalHint: *req.Query, SourceType: st, Options: SWEOptions(),
		Scorer: req.Scorer, Path: req.Path, Language: req.Language, Threshold: threshold,
	})
	if err != nil {
		re := toRPCError(err)
		status := http.StatusUnprocessableEntity
		if re.Code == codeInternal {
			status = http.StatusInternalServerError
		}
		sweError(w, status, re.Message)
		return
	}
	out := &SWEPruneResponse{
		PrunedCode: res.PrunedText, KeptFrags: []int{}, TokenScores: [][]any{},
		OriginTokenCnt: res.Stats.TokensEstBefore, LeftTokenCnt: res.Stats.TokensEstAfter,
		ModelInputTokenCnt: res.Stats.TokensEstBefore + s.queryTokens(*req.Query), PruneID: res.PruneID,
	}
	starts := engine.PyLineStarts(*req.Code)
	py := pyNumbering(*req.Code, starts)
	for _, k := range res.Kept {
		if k >= 1 && k < len(py) {
			for p := py[k-1]; p < py[k]; p++ {
				out.KeptFrags = append(out.KeptFrags, p+1)
			}
		}
	}
	if len(res.Scores) > 0 {
		for _, k := range res.Kept {
			if k >= 1 && k <= len(res.Scores) {
				out.Score = max(out.Score, res.Scores[k-1])
			}
		}
		texts := pyLineTexts(*req.Code, starts)
		for i, sc := range res.Scores {
			if i+1 < len(py) {
				for p := py[i]; p < py[i+1]; p++ {
					out.TokenScores = append(out.TokenScores, []any{texts[p], sc})
				}
			}
		}
	}
	if res.Stats.UsedFallback {
		msg := "fallback: text returned unchanged (" + strings.Join(res.Warnings, ", ") + ")"
		out.ErrorMsg = &msg
	}
	attrs := []any{"request_id", requestID(ctx), "transport", "swe-prune", "tool", "prune",
		"duration_ms", res.Stats.ElapsedMS, "lines_in", res.Stats.OriginalLines, "lines_out", res.Stats.KeptLines,
		"scorer", res.ScorerName}
	if reason := fallbackReason(res); reason != "" {
		attrs = append(attrs, "fallback", reason)
	}
	if res.FallbackError != "" {
		attrs = append(attrs, "fallback_error", res.FallbackError)
	}
	s.log.Info("tool call", attrs...)
	writeJSON(w, http.StatusOK, out)
}

func fallbackReason(res *engine.Result) string {
	if res.Stats.UsedFallback && len(res.Warnings) > 0 {
		return res.Warnings[0]
	}
	return ""
}

func sweError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error_msg": msg, "detail": msg, "pruned_code": nil})
}

func (s *Server) serveHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.tools.health(r.Context()))
}

// sweThreshold reads threshold as SWE-Pruner's pydantic model reads a float in its lax mode
// (a number, a numeric string, or a boolean as 1 or 0; absent or null: the scorer's own) and
// clamps it to [0, 1]: SWE-Pruner takes any float and keeps nothing above 1, everything
// below 0. ok is false for anything else (FastAPI's 422).
func sweThreshold(raw json.RawMessage) (v *float64, ok bool) {
	s := strings.TrimSpace(string(raw))
	var f float64
	switch s {
	case "", "null":
		return nil, true
	case "true":
		f = 1
	case "false":
		f = 0
	default:
		var str string
		if json.Unmarshal(raw, &str) == nil {
			s = strings.TrimSpace(str)
		}
		var err error
		if f, err = strconv.ParseFloat(s, 64); err != nil && !errors.Is(err, strconv.ErrRange) || math.IsNaN(f) {
			return nil, false
		}
		f = min(max(f, 0), 1)
	}
	return &f, true
}

// pyNumbering maps the engine's lines of code onto Python's code.splitlines() lines, which
// start at starts (engine.PyLineStarts): engine line i (0-based) holds Python lines py[i] to
// py[i+1]-1 (0-based); py has one entry more than there are engine lines. Every engine line
// starts a Python line (a "\n" breaks both), so py[i] is the index of its start in starts.
func pyNumbering(code string, starts []int) []int {
	py := make([]int, 0, strings.Count(code, "\n")+2)
	p := 0
	for off := 0; off < len(code); {
		for starts[p] < off {
			p++
		}
		py = append(py, p)
		k := strings.IndexByte(code[off:], '\n')
		if k < 0 {
			break
		}
		off += k + 1
	}
	return append(py, len(starts))
}

// pyLineTexts is Python's code.splitlines(), whose lines start at starts: each line without
// its break.
func pyLineTexts(code string, starts []int) []string {
	out := make([]string, len(starts))
	for i, s := range starts {
		end := len(code)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		seg := code[s:end]
		if t, ok := strings.CutSuffix(seg, "\r\n"); ok {
			seg = t
		} else if r, size := utf8.DecodeLastRuneInString(seg); size > 0 && engine.PyBreak(r) {
			seg = seg[:len(seg)-size]
		}
		out[i] = seg
	}
	return out
}

// queryTokens is the query's token count for model_input_token_cnt, estimated past 64 KiB
// (the most of a goal the scorers read), where an exact count could take seconds.
func (s *Server) queryTokens(q string) int {
	if len(q) > 64<<10 {
		return (len(q) + 3) / 4
	}
	return s.tools.eng.CountTokens(q)
}
