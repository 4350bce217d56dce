package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// SWEPruneRequest is SWE-Pruner's POST /prune request. source_type, scorer, path and language
// are optional extensions; always_keep_first_frags and chunk_overlap_tokens are accepted for
// compatibility and have no effect (the engine scores whole lines, not token chunks).
type SWEPruneRequest struct {
	Query                *string  `json:"query"`
	Code                 *string  `json:"code"`
	Threshold            *float64 `json:"threshold,omitempty"`
	AlwaysKeepFirstFrags bool     `json:"always_keep_first_frags,omitempty"`
	ChunkOverlapTokens   *int     `json:"chunk_overlap_tokens,omitempty"`
	SourceType           string   `json:"source_type,omitempty"`
	Scorer               string   `json:"scorer,omitempty"`
	Path                 string   `json:"path,omitempty"`
	Language             string   `json:"language,omitempty"`
}

// SWEPruneResponse is SWE-Pruner's POST /prune response, filled from the engine's result:
// kept_frags are the kept original line numbers, token_scores holds one [line, score] pair
// per line (our scorers score lines, not tokens), score is the mean line score, and the token
// counts are tiktoken counts of the input and of pruned_code. prune_id is an extension that
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
// prefixes (SWE-Pruner's pruned_code has none), with markers where lines were cut.
func SWEOptions() engine.Options {
	o := engine.DefaultOptions()
	o.AnnotateLines = false
	o.IncludeMarkers = true
	return o
}

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
	st := engine.SourceCode
	if req.SourceType != "" {
		st = engine.SourceType(req.SourceType)
	}
	ctx := r.Context()
	res, err := s.tools.admitted(ctx, &engine.Request{
		Text: *req.Code, GoalHint: *req.Query, SourceType: st, Options: SWEOptions(),
		Scorer: req.Scorer, Path: req.Path, Language: req.Language, Threshold: req.Threshold,
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
		PrunedCode: res.PrunedText, KeptFrags: res.Kept, TokenScores: [][]any{},
		OriginTokenCnt: res.Stats.TokensEstBefore, LeftTokenCnt: res.Stats.TokensEstAfter,
		ModelInputTokenCnt: res.Stats.TokensEstBefore, PruneID: res.PruneID,
	}
	if out.KeptFrags == nil {
		out.KeptFrags = []int{}
	}
	if len(res.Scores) > 0 {
		lines := engine.SplitLines(*req.Code)
		sum := 0.0
		for i, sc := range res.Scores {
			sum += sc
			if i < len(lines) {
				out.TokenScores = append(out.TokenScores, []any{strings.TrimSuffix(lines[i], "\r"), sc})
			}
		}
		out.Score = sum / float64(len(res.Scores))
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
