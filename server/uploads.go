package server

import (
	"io"
	"net/http"
	"sync"
	"time"
)

// uploads tracks the request bodies still being read, so that shutdown can end the ones a
// client stalled: net/http's Shutdown waits for every active connection, and a connection
// mid-body is active until the read deadline (two minutes), so one client that sent half a
// body and stopped made every shutdown wait out its whole timeout and exit with an error,
// although every real request had been answered.
type uploads struct {
	mu       sync.Mutex
	reading  map[*uploadBody]struct{}
	closing  bool
	deadline time.Time // once closing, the end of every body read
}

// uploadBody is a request body under watch: it leaves the watch at its end or first error.
type uploadBody struct {
	io.ReadCloser
	rc  *http.ResponseController
	set *uploads
}

func (b *uploadBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.set.remove(b)
	}
	return n, err
}

// watch wraps next so that every request body is tracked while it is read.
func (u *uploads) watch(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		b := &uploadBody{ReadCloser: r.Body, rc: http.NewResponseController(w), set: u}
		u.add(b)
		defer u.remove(b)
		r.Body = b
		next.ServeHTTP(w, r)
	})
}

func (u *uploads) add(b *uploadBody) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.closing {
		_ = b.rc.SetReadDeadline(u.deadline)
		return
	}
	if u.reading == nil {
		u.reading = map[*uploadBody]struct{}{}
	}
	u.reading[b] = struct{}{}
}

func (u *uploads) remove(b *uploadBody) {
	u.mu.Lock()
	delete(u.reading, b)
	u.mu.Unlock()
}

// stop gives the bodies still being read, and any begun from now on, until grace from now
// to arrive; past it their requests fail as a cut-off upload does. An upload in progress
// finishes in time; a stalled one no longer holds the shutdown.
func (u *uploads) stop(grace time.Duration) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.closing = true
	u.deadline = time.Now().Add(grace)
	for b := range u.reading {
		_ = b.rc.SetReadDeadline(u.deadline)
	}
}
