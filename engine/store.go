package engine

import (
	"container/list"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Recovery errors. The server maps them to -32004 and -32005.
var (
	ErrPruneIDNotFound = errors.New("prune_id_not_found")
	ErrInvalidRange    = errors.New("invalid_range")
)

// Store keeps original texts for recovery. Implementations must be safe for concurrent use;
// the in-memory one is MemoryStore, and a shared store can implement the same interface.
type Store interface {
	// Put stores text under id.
	Put(ctx context.Context, id, text string) error
	// Get returns the text stored under id, or an error wrapping ErrPruneIDNotFound.
	Get(ctx context.Context, id string) (string, error)
}

// NewPruneID returns a fresh id of the form "prn_<32 decimal digits>" (pruneID; 106 random
// bits from crypto/rand). A tokenizer cuts a run of digits into groups
// of three whatever the digits are, so every id costs the same tokens in a marker (40 per
// marker in cl100k_base, against 41–55 and a mode of 47 for ids of random hex), and newID
// need not draw ids until one costs the usual count.
func NewPruneID() string {
	// Two draws below the largest multiple of 10^16 under 2^64, each 16 digits, uniform.
	const block = 10_000_000_000_000_000
	const limit = (1<<64 - 1) / block * block
	var v [2]uint64
	var b [8]byte
	for k := range v {
		for {
			if _, err := rand.Read(b[:]); err != nil {
				panic("engine: crypto/rand failed: " + err.Error()) // never happens on Linux
			}
			if x := binary.LittleEndian.Uint64(b[:]); x < limit {
				v[k] = x % block
				break
			}
		}
	}
	return pruneID(v[0], v[1])
}

// pruneID is the form of every prune id: "prn_" and two numbers below 10^16, 16 digits each.
func pruneID(hi, lo uint64) string { return fmt.Sprintf("prn_%016d%016d", hi, lo) }

// MemoryStore is an in-memory Store with a TTL and a total byte cap enforced by
// least-recently-used eviction, so memory cannot grow without limit.
type MemoryStore struct {
	mu       sync.Mutex
	ttl      time.Duration
	maxBytes int64
	now      func() time.Time

	bytes int64
	lru   *list.List // front = most recently used; values are *storeEntry
	byID  map[string]*list.Element
}

type storeEntry struct {
	id      string
	text    string
	expires time.Time
}

// DefaultTTL and DefaultStoreBytes are the recovery store's defaults.
const (
	DefaultTTL        = 600 * time.Second
	DefaultStoreBytes = 256 << 20
)

// NewMemoryStore returns a store whose entries live for ttl and whose texts together take at
// most maxBytes. now may be nil (time.Now); tests pass a fake clock.
func NewMemoryStore(ttl time.Duration, maxBytes int64, now func() time.Time) *MemoryStore {
	if now == nil {
		now = time.Now
	}
	return &MemoryStore{ttl: ttl, maxBytes: maxBytes, now: now, lru: list.New(), byID: map[string]*list.Element{}}
}

// Put stores text. A text larger than the whole cap is not kept (its id will not be found),
// rather than evicting everything else.
func (s *MemoryStore) Put(_ context.Context, id, text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.byID[id]; ok {
		s.remove(el)
	}
	size := int64(len(text))
	if size > s.maxBytes {
		return nil
	}
	s.expireLocked()
	for s.bytes+size > s.maxBytes && s.lru.Len() > 0 {
		s.remove(s.lru.Back())
	}
	s.byID[id] = s.lru.PushFront(&storeEntry{id: id, text: text, expires: s.now().Add(s.ttl)})
	s.bytes += size
	return nil
}

// Get returns the text stored under id and marks it recently used.
func (s *MemoryStore) Get(_ context.Context, id string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	el, ok := s.byID[id]
	if !ok {
		return "", ErrPruneIDNotFound
	}
	e := el.Value.(*storeEntry)
	if !s.now().Before(e.expires) {
		s.remove(el)
		return "", ErrPruneIDNotFound
	}
	s.lru.MoveToFront(el)
	return e.text, nil
}

// Len and Bytes report the store's size (for health and tests).
func (s *MemoryStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lru.Len()
}

// Bytes reports the total size of the stored texts.
func (s *MemoryStore) Bytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bytes
}

// expireLocked drops expired entries from the cold end; entries are not strictly ordered by
// expiry after a Get, so this is a cheap sweep, and Get re-checks expiry itself.
func (s *MemoryStore) expireLocked() {
	now := s.now()
	for el := s.lru.Back(); el != nil; {
		prev := el.Prev()
		if !now.Before(el.Value.(*storeEntry).expires) {
			s.remove(el)
		}
		el = prev
		if s.lru.Len() > 0 && el != nil && now.Before(el.Value.(*storeEntry).expires) {
			break
		}
	}
}

func (s *MemoryStore) remove(el *list.Element) {
	e := s.lru.Remove(el).(*storeEntry)
	delete(s.byID, e.id)
	s.bytes -= int64(len(e.text))
}
