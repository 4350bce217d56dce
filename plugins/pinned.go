package plugins

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
)

// openPinned opens the plugin binary at path and checks the SHA-256 of what it opened. The
// process is then started from that open file (pinnedCommand), not from path again: a file
// replaced on disk between the check and the start would otherwise run unchecked. The caller
// closes the file once the process has started.
func openPinned(path string, sum []byte) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrStart, err)
	}
	// Started through its descriptor, a file exec refuses would be reported under that
	// descriptor's name; say which file, and what to do.
	if st, err := f.Stat(); err == nil && (!st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0) {
		f.Close()
		return nil, fmt.Errorf("%w: %s is not an executable file (chmod +x it, or name the binary)", ErrStart, path)
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: reading %s: %v", ErrStart, path, err)
	}
	if got := h.Sum(nil); !bytes.Equal(got, sum) {
		f.Close()
		return nil, fmt.Errorf("%w: %s has sha256 %x, the pin says %x", ErrChecksum, path, got, sum)
	}
	return f, nil
}
