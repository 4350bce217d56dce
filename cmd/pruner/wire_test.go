package main

import (
	"context"
	"testing"
	"time"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/structural"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDefaultScorers checks the defaults wired per source type, and that an explicit
// --scorer wins for every type.
func TestDefaultScorers(t *testing.T) {
	tests := []struct {
		name   string
		scorer string
		want   map[engine.SourceType]string
	}{
		{name: "defaults", want: map[engine.SourceType]string{engine.SourceCode: "structural", engine.SourceLogs: "heuristic", engine.SourceDocs: "heuristic"}},
		{name: "explicit heuristic", scorer: "heuristic", want: map[engine.SourceType]string{engine.SourceCode: "heuristic", engine.SourceLogs: "heuristic", engine.SourceDocs: "heuristic"}},
		{name: "explicit structural", scorer: "structural", want: map[engine.SourceType]string{engine.SourceCode: "structural", engine.SourceLogs: "structural", engine.SourceDocs: "structural"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg, err := newRegistry(&engineConfig{scorer: tt.scorer})
			require.NoError(t, err)
			t.Cleanup(func() { _ = reg.Close() })
			for st, want := range tt.want {
				assert.Equal(t, want, reg.DefaultFor(st), "source type %s", st)
			}
		})
	}
}

// TestDefaultCodeScorerDefersQuietly: the default for code is structural in the languages it
// knows and the heuristic elsewhere, so a Makefile pruned with no scorer named says nothing
// of a fallback, while a caller who named structural (per request, or as --scorer) hears
// that it did not apply.
func TestDefaultCodeScorerDefersQuietly(t *testing.T) {
	text := "all: build\n\nbuild:\n\tgo build ./...\n\ntest:\n\tgo test ./...\n\nlint:\n\tgo vet ./...\n"
	tests := []struct {
		name     string
		flag     string // --scorer
		asked    string // the request's scorer
		warnings []string
	}{
		{name: "default", warnings: []string{}},
		{name: "named in the request", asked: "structural", warnings: []string{structural.WarnUnknownLanguage}},
		{name: "named by --scorer", flag: "structural", warnings: []string{structural.WarnUnknownLanguage}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := buildEngine(context.Background(), &engineConfig{scorer: tt.flag, encoding: "cl100k_base", maxInputChars: 1 << 20, ttl: time.Minute, storeBytes: 1 << 20, onnxThreads: 1})
			require.NoError(t, err)
			t.Cleanup(func() { _ = b.reg.Close() })
			res, err := b.engine.Prune(context.Background(), &engine.Request{
				Text: text, GoalHint: "how are the tests run", SourceType: engine.SourceCode, Path: "Makefile",
				Scorer: tt.asked, Options: engine.Options{MaxPruneRatio: 0.9, MinKeepLines: 2, TimeoutMS: 5000, IncludeMarkers: true},
			})
			require.NoError(t, err)
			assert.Equal(t, tt.warnings, res.Warnings)
		})
	}
}
