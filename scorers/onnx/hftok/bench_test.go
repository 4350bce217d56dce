package hftok

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkEncodePair encodes (goal, line) pairs as the cross-encoder does, over the lines of
// the onnx scorer's Go source, with the parity test's BERT and RoBERTa configurations: the
// cost of the whole pipeline per line, added-token splitting included. Its corpus leaves this
// package's own source out, so that a change here does not change what is measured.
func BenchmarkEncodePair(b *testing.B) {
	var sb strings.Builder
	for _, pattern := range []string{"../../../README.md", "../*.go"} {
		paths, err := filepath.Glob(pattern)
		require.NoError(b, err)
		for _, p := range paths {
			if strings.HasSuffix(p, "_test.go") {
				continue
			}
			data, err := os.ReadFile(p)
			require.NoError(b, err)
			sb.Write(data)
			sb.WriteByte('\n')
		}
	}
	corpus := sb.String()
	lines := corpusLines(corpus)
	var size int64
	for _, l := range lines {
		size += int64(len(l))
	}
	for _, c := range parityConfigs(corpus) {
		if c.name != "bert-uncased" && c.name != "roberta" {
			continue
		}
		js, err := json.Marshal(c.json)
		require.NoError(b, err)
		tok, err := Parse(js)
		require.NoError(b, err)
		b.Run(fmt.Sprintf("tok=%s/lines=%d", c.name, len(lines)), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(size)
			for i := 0; i < b.N; i++ {
				for _, l := range lines {
					tok.EncodePair("where does the parser fail on unicode input?", l, 256)
				}
			}
		})
	}
}
