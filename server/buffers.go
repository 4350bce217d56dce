package server

import (
	"bytes"
	"sync"
)

// A POST /rpc prune reads a body, encodes a payload and assembles a response that holds the
// payload twice: three buffers of the text's size per request, which were a third of the
// bytes the server allocated and most of what its garbage collector cycled through under
// load. They are reused across requests instead. Nothing that outlives a request (the
// engine's request, the recovery store, errors, logs) may point into them: everything taken
// from a body is copied out (strings, json.Unmarshal), and the payload and response are
// written out before their buffers are put back.

// maxPooledBuffer bounds the buffers kept for reuse, so one huge request does not pin its
// memory for the life of the process; bigger ones are left to the garbage collector.
const maxPooledBuffer = 1 << 20

var bufferPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// getBuffer returns an empty buffer, possibly with room left by an earlier request.
func getBuffer() *bytes.Buffer {
	return bufferPool.Get().(*bytes.Buffer) // putBuffer resets what it pools
}

// putBuffer gives b back for reuse. The caller must hold no slice of it any more.
func putBuffer(b *bytes.Buffer) {
	if b == nil || b.Cap() > maxPooledBuffer {
		return
	}
	b.Reset()
	bufferPool.Put(b)
}
