package gcfloor

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPercent(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		live, floor uint64
		base, want  int
	}{
		{live: 16 * mb, floor: 64 * mb, base: 100, want: 300},  // 16 + 16*3 = 64
		{live: 10 * mb, floor: 64 * mb, base: 100, want: 540},  // 10 + 54
		{live: 32 * mb, floor: 64 * mb, base: 100, want: 100},  // GOGC's own goal is the floor
		{live: 40 * mb, floor: 64 * mb, base: 100, want: 100},  // and past it
		{live: 200 * mb, floor: 64 * mb, base: 100, want: 100}, // a full server: untouched
		{live: 16 * mb, floor: 64 * mb, base: 400, want: 400},  // the operator's GOGC already reaches it
		{live: 16 * mb, floor: 64 * mb, base: 200, want: 300},
		{live: 0, floor: 64 * mb, base: 100, want: maxPercent},
		{live: 1024, floor: 64 * mb, base: 100, want: maxPercent},
		{live: 16 * mb, floor: 64 * mb, base: -1, want: -1}, // GOGC=off stays off
	} {
		assert.Equal(t, c.want, Percent(c.live, c.floor, c.base), "live %d floor %d base %d", c.live, c.floor, c.base)
	}
}

func TestGOGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, p := range []int{100, 250, 0, -1} {
		debug.SetGCPercent(p)
		assert.Equal(t, p, GOGC())
	}
}

// TestStartRaisesGOGCWhileTheHeapIsSmall: after a collection, a floor far above this test's
// live heap raises GOGC; a live heap above the floor brings it back; stop restores it.
func TestStartRaisesGOGCWhileTheHeapIsSmall(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	debug.SetGCPercent(100)
	stop := Start(256 << 20)
	defer stop()
	Start(1 << 30)() // while a floor runs, another does nothing, and its stop neither
	running.Lock()
	assert.True(t, running.on, "the first floor still runs")
	running.Unlock()

	eventually := func(ok func(p int) bool, what string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for p := GOGC(); !ok(p); p = GOGC() {
			require.True(t, time.Now().Before(deadline), "%s: GOGC still %d", what, p)
			runtime.GC()
			time.Sleep(time.Millisecond)
		}
	}
	eventually(func(p int) bool { return p > 200 }, "a small live heap")

	held := make([]byte, 300<<20) // live: past the floor
	for i := range held {
		held[i] = byte(i)
	}
	eventually(func(p int) bool { return p == 100 }, "a live heap past the floor")
	runtime.KeepAlive(held)
	held = nil

	stop()
	stop() // twice is harmless
	assert.Equal(t, 100, GOGC(), "stop restores the GOGC Start found")
	runtime.GC()
	runtime.GC()
	time.Sleep(10 * time.Millisecond)
	assert.Equal(t, 100, GOGC(), "a stopped floor no longer moves it")
	Start(1 << 20)() // a floor can start again once the last has stopped
}

func TestStartDoesNothingWhenGCIsOff(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	stop := Start(64 << 20)
	runtime.GC()
	time.Sleep(10 * time.Millisecond)
	assert.Equal(t, -1, GOGC())
	stop()
	assert.Equal(t, -1, GOGC())
	debug.SetGCPercent(100)
	Start(0)()
	assert.Equal(t, 100, GOGC())
}
