package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"sync/atomic"
)

type requestIDKey struct{}

// withRequestID returns ctx carrying the request id that log lines cite.
func withRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

func requestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// idSource hands out request ids "<process prefix>-<n>": unique within a run, and distinct
// across restarts so logs from two runs do not collide.
type idSource struct {
	prefix string
	n      atomic.Uint64
}

func newIDSource() *idSource {
	var b [3]byte
	rand.Read(b[:])
	return &idSource{prefix: hex.EncodeToString(b[:])}
}

func (s *idSource) next() string {
	return s.prefix + "-" + strconv.FormatUint(s.n.Add(1), 10)
}
