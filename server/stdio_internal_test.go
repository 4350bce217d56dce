package server

import (
	"bufio"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadLine(t *testing.T) {
	const max = 100
	long := strings.Repeat("y", 70_000) // past bufio's 64 KiB buffer, so read in pieces
	in := strings.Join([]string{
		"a",
		strings.Repeat("x", max),   // exactly the limit
		strings.Repeat("x", max+1), // one byte over
		long,
		"",
		"b\r",
		"tail without newline",
	}, "\n")
	type got struct {
		line    string
		tooLong bool
	}
	var lines []got
	br := bufio.NewReaderSize(strings.NewReader(in), 64<<10)
	var buf []byte
	for {
		line, tooLong, err := readLine(br, buf[:0], max)
		buf = line
		lines = append(lines, got{string(line), tooLong})
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
	}
	assert.Equal(t, []got{
		{"a", false},
		{strings.Repeat("x", max), false},
		{"", true},
		{"", true},
		{"", false},
		{"b\r", false},
		{"tail without newline", false},
	}, lines)

	br = bufio.NewReaderSize(strings.NewReader(long), 64<<10)
	line, tooLong, err := readLine(br, nil, len(long))
	assert.Equal(t, io.EOF, err)
	assert.False(t, tooLong)
	assert.Equal(t, long, string(line), "a line read in several pieces comes back whole")
}

func TestScreenLine(t *testing.T) {
	for _, ok := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"x","result":{}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, // batches are the SDK's to judge
	} {
		assert.Nil(t, screenLine([]byte(ok)), ok)
	}
	for line, code := range map[string]int64{
		`nope`:                      codeParse,
		`{"a":}`:                    codeParse,
		`"str"`:                     codeInvalidRequest,
		`{}`:                        codeInvalidRequest,
		`{"jsonrpc":"2.0","id":{}}`: codeInvalidRequest,
	} {
		r := screenLine([]byte(line))
		if assert.NotNil(t, r, line) {
			assert.Equal(t, code, r.Error.Code, line)
		}
	}
}
