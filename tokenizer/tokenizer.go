// Package tokenizer counts tiktoken tokens (cl100k_base, o200k_base) exactly and offline.
//
// It is a leaf package: it imports the tiktoken libraries and the standard library only.
// Encodings come from github.com/pkoukk/tiktoken-go-loader's embedded files, so no
// network access is ever attempted.
package tokenizer

import (
	"errors"
	"fmt"
	"sync"

	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// Encoding names supported by Load.
const (
	CL100K = "cl100k_base"
	O200K  = "o200k_base"
)

// ErrUnknownEncoding is returned by Load for an encoding name it does not support.
var ErrUnknownEncoding = errors.New("unknown encoding")

// Encoder counts tokens for one encoding. It is safe for concurrent use.
type Encoder struct {
	name string
	tk   *tiktoken.Tiktoken
}

var (
	loaderOnce sync.Once
	encMu      sync.Mutex
	encoders   = map[string]*Encoder{}
)

// Load returns the shared encoder for name, loading it on first use.
func Load(name string) (*Encoder, error) {
	if name != CL100K && name != O200K {
		return nil, fmt.Errorf("tokenizer %q: %w", name, ErrUnknownEncoding)
	}
	loaderOnce.Do(func() { tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader()) })
	encMu.Lock()
	defer encMu.Unlock()
	if e, ok := encoders[name]; ok {
		return e, nil
	}
	tk, err := tiktoken.GetEncoding(name)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %q: %w", name, err)
	}
	e := &Encoder{name: name, tk: tk}
	encoders[name] = e
	return e, nil
}

// Name is the encoding's name, e.g. "cl100k_base".
func (e *Encoder) Name() string { return e.name }

// Count returns the exact number of tokens of s, special tokens treated as ordinary text.
func (e *Encoder) Count(s string) int {
	if s == "" {
		return 0
	}
	return len(e.tk.EncodeOrdinary(s))
}
