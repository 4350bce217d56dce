// Package gcfloor keeps a server's garbage collector from running while its heap is small.
//
// Go's collector starts a cycle each time the heap grows by GOGC percent of what the last
// cycle left live. A server that has just started, or that holds little, has a live heap of a
// few megabytes, and at thousands of requests a second (a 200-line prune allocates about 80
// KB) that is a cycle every few tens of milliseconds: 17 a second at 3,300 prunes/s, each
// with its pauses, its mark workers and the assists it charges to requests. A server whose
// recovery store and caches have filled collects every few hundred megabytes instead. A heap
// floor makes the small-heap case behave like that one, for at most the floor's bytes of
// memory: after each cycle, while the live heap is small, GOGC is raised so that the next
// cycle starts when the heap reaches the floor; once the live heap is large enough that GOGC's
// own goal passes the floor, GOGC is left as the process set it. GOMEMLIMIT, when set, still
// bounds the heap.
package gcfloor

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// DefaultBytes is pruner serve's floor: a few times a fresh server's live heap, and small
// next to the recovery store's default bound (256 MiB).
const DefaultBytes = 64 << 20

// Start keeps the heap goal at floor bytes or more, from the next collection on, until stop is
// called, which sets GOGC back to the value it had (Start reads it from the runtime, so a GOGC
// environment variable counts). When GOGC is off, or floor is 0, it does nothing; GOGC is one
// per process, so while a floor runs, another Start does nothing either (two servers in one
// process, as tests run them, share the first one's floor).
func Start(floor uint64) (stop func()) {
	if floor == 0 {
		return func() {}
	}
	base := GOGC()
	if base < 0 {
		return func() {}
	}
	running.Lock()
	defer running.Unlock()
	if running.on {
		return func() {}
	}
	running.on = true
	f := &floorState{floor: floor, base: base, sample: []metrics.Sample{{Name: liveMetric}}}
	f.arm()
	var once sync.Once
	return func() {
		once.Do(func() {
			f.mu.Lock()
			f.stopped = true
			debug.SetGCPercent(f.base)
			f.mu.Unlock()
			running.Lock()
			running.on = false
			running.Unlock()
		})
	}
}

// GOGC returns the process's GOGC as the runtime holds it now (the GOGC environment variable,
// or the last debug.SetGCPercent): -1 when the collector is off.
func GOGC() int {
	s := []metrics.Sample{{Name: gogcMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 100 // the runtime's default, should the metric ever go away
	}
	return int(int64(s[0].Value.Uint64())) // off reads as the bits of -1
}

const gogcMetric = "/gc/gogc:percent"

// running says whether a floor is set: GOGC is one per process.
var running struct {
	sync.Mutex
	on bool
}

// liveMetric is the heap the last collection marked live.
const liveMetric = "/gc/heap/live:bytes"

type floorState struct {
	mu      sync.Mutex
	floor   uint64
	base    int
	stopped bool
	sample  []metrics.Sample
}

// sentinel is garbage from birth: its cleanup runs once a collection has found it so, that is
// after each cycle, and sets the next one's GOGC. It holds a pointer so that the runtime does
// not pack it with other small objects, whose being live would keep its cleanup from running.
type sentinel struct {
	_ *byte
	_ [24]byte
}

func (f *floorState) arm() {
	runtime.AddCleanup(new(sentinel), func(f *floorState) { f.afterCycle() }, f)
}

// afterCycle sets GOGC for the live heap the cycle that just ended left, and waits for the
// next one.
func (f *floorState) afterCycle() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped {
		return
	}
	metrics.Read(f.sample)
	if f.sample[0].Value.Kind() == metrics.KindUint64 {
		debug.SetGCPercent(Percent(f.sample[0].Value.Uint64(), f.floor, f.base))
	}
	f.arm()
}

// maxPercent bounds the GOGC a floor sets (a live heap of a few kilobytes would ask for
// millions); the floor is then reached a little later than asked.
const maxPercent = 100_000

// Percent returns the GOGC that makes the next collection's heap goal floor bytes for a live
// heap of live bytes, or base when base already sets a goal at or above the floor.
func Percent(live, floor uint64, base int) int {
	if base < 0 {
		return base
	}
	live = max(live, 1)
	// The goal GOGC sets is live + live*GOGC/100 (the runtime adds stacks and globals, which
	// only move it up).
	if live >= floor || float64(live)*(1+float64(base)/100) >= float64(floor) {
		return base
	}
	p := math.Ceil(float64(floor-live) * 100 / float64(live))
	return int(min(p, maxPercent))
}
