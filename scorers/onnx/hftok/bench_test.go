package hftok

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkEncodePair encodes (goal, line) pairs as the cross-encoder does, over the lines of
// this package's Go source, with the parity test's BERT and RoBERTa configurations: the cost
// of the whole pipeline per line, added-token splitting included.
func BenchmarkEncodePair(b *testing.B) {
	corpus := parityCorpus(b)
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
