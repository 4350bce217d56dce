package server

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadBodyReservesLittleBeforeTheBytes: a declared Content-Length reserves at most
// preGrowBytes before the body arrives (a connection that sends headers and stalls held a
// megabyte), and a body larger than that is still read whole.
func TestReadBodyReservesLittleBeforeTheBytes(t *testing.T) {
	var buf bytes.Buffer
	stalled := iotest.ErrReader(io.ErrUnexpectedEOF) // headers sent, then nothing
	_, err := readBody(&buf, stalled, 1<<20)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.Less(t, buf.Cap(), 2*preGrowBytes, "not the megabyte declared")

	body := strings.Repeat("x", 3<<20)
	buf = bytes.Buffer{}
	got, err := readBody(&buf, strings.NewReader(body), int64(len(body)))
	require.NoError(t, err)
	assert.Equal(t, body, string(got))
}
