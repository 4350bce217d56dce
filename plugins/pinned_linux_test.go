package plugins

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPinnedBinaryIsTheOneThatRuns: the file on disk is swapped back and forth between the
// pinned binary and another one while clients start; a process is only ever started from the
// file whose checksum was checked, so the other binary never runs (before, go-plugin hashed
// the file by name and then started it by name again, and the swap won on the first start).
func TestPinnedBinaryIsTheOneThatRuns(t *testing.T) {
	good, sum := buildPlugin(t, "./plugins/testdata/probe")
	other, _ := buildPlugin(t, "./plugins/testdata/faulty")
	dir := t.TempDir()
	target := filepath.Join(dir, "plugin")
	require.NoError(t, os.Link(good, target))

	var stop atomic.Bool
	swapped := make(chan struct{})
	go func() { // a careless deploy (or an attacker) replacing the file
		defer close(swapped)
		for i := 0; !stop.Load(); i++ {
			src := good
			if i%2 == 1 {
				src = other
			}
			tmp := target + ".tmp"
			_ = os.Remove(tmp)
			if os.Link(src, tmp) == nil {
				_ = os.Rename(tmp, target)
			}
		}
	}()
	var pinned, unpinned, refused int
	for range 30 {
		c, err := New(context.Background(), Config{Name: "p", Command: target, SHA256: sum, Start: StartEager})
		if err != nil {
			assert.ErrorIs(t, err, ErrChecksum, "a swapped file is refused, not half-run")
			refused++
			continue
		}
		if c.Describe().Name == "p" && c.Describe().Description == "misbehaves on request" {
			unpinned++
		} else {
			pinned++
		}
		require.NoError(t, c.Close())
	}
	stop.Store(true)
	<-swapped
	t.Logf("pinned binary ran %d times, the other %d, refused %d", pinned, unpinned, refused)
	assert.Zero(t, unpinned, "the unpinned binary never runs")
	assert.Positive(t, pinned+refused)
}
