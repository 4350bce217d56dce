package engine

import "sync/atomic"

// settler calls a request's Settled hook once every part of its prune has ended: Prune's own
// call, which holds it from the start, and each goroutine Prune starts, which holds it from
// before it starts until its work returns. Whichever lets go last calls the hook, so it runs
// exactly once, whether the goroutines end before Prune returns or after.
type settler struct {
	held atomic.Int32
	fn   func() // nil: nobody waits
}

// newSettler returns a settler held once, by the caller.
func newSettler(fn func()) *settler {
	s := &settler{fn: fn}
	s.held.Store(1)
	return s
}

// hold takes one more hold; call it before starting the goroutine that will let go.
func (s *settler) hold() { s.held.Add(1) }

// done lets go of one hold; the last one calls the hook.
func (s *settler) done() {
	if s.held.Add(-1) == 0 && s.fn != nil {
		s.fn()
	}
}

// finish runs f and then lets go of one hold, whether f returns or panics; it returns what f
// panicked with, if anything. A goroutine lets go before it hands its outcome over, so a
// Prune that waited for every outcome makes the last call itself and the hook has run by the
// time Prune returns.
func (s *settler) finish(f func()) (panicked any) {
	defer s.done()
	defer func() { panicked = recover() }()
	f()
	return nil
}

// held is what a goroutine started by goHeld ended with: f's value, or what f panicked with.
type held[T any] struct {
	v        T
	panicked any
}

// goHeld runs f in a goroutine that holds s until f returns or panics, and delivers how it
// ended on the channel it returns (buffered: nobody need read it).
func goHeld[T any](s *settler, f func() T) <-chan held[T] {
	done := make(chan held[T], 1)
	s.hold()
	go func() {
		var h held[T]
		h.panicked = s.finish(func() { h.v = f() })
		done <- h
	}()
	return done
}
