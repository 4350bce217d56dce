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

// ErrTooLargeToStore is wrapped by a Put that refuses a text larger than the store's whole
// capacity.
var ErrTooLargeToStore = errors.New("text larger than the recovery store")

// Store keeps original texts for recovery. Implementations must be safe for concurrent use;
// the in-memory one is MemoryStore, and a shared store can implement the same interface.
type Store interface {
	// Put stores text under id, or returns an error when it cannot (then the id will not be
	// found). The engine does not cut lines it could not give back: a prune whose original
	// Put refuses fails open with WarnRecoveryUnavailable.
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
// least-recently-used eviction, so memory cannot grow without limit. Identical texts are held
// once: an agent that reads the same file or command output again (the common case) costs the
// store one more entry, not one more copy. The cap counts every distinct text's bytes plus,
// for every entry, its id and StoreEntryOverhead, so a flood of tiny or repeated texts is
// bounded too.
type MemoryStore struct {
	mu       sync.Mutex
	ttl      time.Duration
	maxBytes int64
	now      func() time.Time

	bytes int64
	lru   *list.List // front = most recently used; values are *storeEntry
	byID  map[string]*list.Element
	texts map[string]*storeText // distinct texts, by content
	// sweep drops expired entries when the earliest of them expires (sweepExpired), so an
	// idle store does not hold originals, which may be secrets, past their TTL; nil when
	// the store is empty.
	sweep *time.Timer
}

type storeEntry struct {
	id      string
	text    *storeText
	expires time.Time
}

// storeText is one distinct text and the number of entries holding it.
type storeText struct {
	text string
	refs int
}

// StoreEntryOverhead is what MemoryStore counts for each entry besides its id and its share
// of a text: the entry, its list element and its two map slots, about 150 bytes on 64-bit
// platforms, rounded up.
const StoreEntryOverhead = 160

// DefaultTTL and DefaultStoreBytes are the recovery store's defaults.
const (
	DefaultTTL        = 600 * time.Second
	DefaultStoreBytes = 256 << 20
)

// NewMemoryStore returns a store whose entries live for ttl and whose texts and entries
// together count at most maxBytes. now may be nil (time.Now); tests pass a fake clock.
func NewMemoryStore(ttl time.Duration, maxBytes int64, now func() time.Time) *MemoryStore {
	if now == nil {
		now = time.Now
	}
	return &MemoryStore{ttl: ttl, maxBytes: maxBytes, now: now, lru: list.New(), byID: map[string]*list.Element{}, texts: map[string]*storeText{}}
}

// entryCost is what an entry counts against the cap besides its text.
func entryCost(id string) int64 { return int64(len(id)) + StoreEntryOverhead }

// Put stores text. A text larger than the whole cap is not kept, rather than evicting
// everything else: Put returns an error wrapping ErrTooLargeToStore, and id is not found.
func (s *MemoryStore) Put(_ context.Context, id, text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.byID[id]; ok {
		s.remove(el)
	}
	if need := entryCost(id) + int64(len(text)); need > s.maxBytes {
		return fmt.Errorf("%w: %d bytes with its entry, cap %d", ErrTooLargeToStore, need, s.maxBytes)
	}
	s.expireLocked()
	// The text is looked up once (hashing it costs its length): an eviction changes what
	// storing it adds only when it lets go of the text's last holder.
	t := s.texts[text]
	cost := func() int64 {
		if t == nil {
			return entryCost(id) + int64(len(text))
		}
		return entryCost(id)
	}
	for s.bytes+cost() > s.maxBytes && s.lru.Len() > 0 {
		s.remove(s.lru.Back())
		if t != nil && t.refs == 0 {
			t = nil
		}
	}
	if t == nil {
		t = &storeText{text: text}
		s.texts[text] = t
		s.bytes += int64(len(text))
	}
	t.refs++
	s.bytes += entryCost(id)
	s.byID[id] = s.lru.PushFront(&storeEntry{id: id, text: t, expires: s.now().Add(s.ttl)})
	if s.sweep == nil {
		// Entries expire in the order they were put: none expires before this sweep but
		// the one just put, if the store was empty.
		s.sweep = time.AfterFunc(s.ttl, s.sweepExpired)
	}
	return nil
}

// sweepExpired drops every expired entry, then sets the next sweep for when the earliest
// entry left expires, or a quarter of the TTL from now if that is later.
func (s *MemoryStore) sweepExpired() {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	var next time.Time
	for el := s.lru.Back(); el != nil; {
		prev := el.Prev()
		if exp := el.Value.(*storeEntry).expires; !now.Before(exp) {
			s.remove(el)
		} else if next.IsZero() || exp.Before(next) {
			next = exp
		}
		el = prev
	}
	s.sweep = nil
	if !next.IsZero() {
		// Not sooner than a quarter of the TTL after this sweep: a sweep walks every entry
		// (recency is not expiry order), and under steady load the earliest expiry is the
		// next Put's, so sweeping at each would walk the whole store once a Put. An entry
		// is then dropped at most a quarter of the TTL late (Get refuses it on time).
		s.sweep = time.AfterFunc(max(next.Sub(now), s.ttl/4)+time.Millisecond, s.sweepExpired)
	}
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
	return e.text.text, nil
}

// LargestText is the size in bytes of the largest text Put keeps under a prune id: the cap
// less the entry's own cost. A larger text is refused with ErrTooLargeToStore.
func (s *MemoryStore) LargestText() int64 { return s.maxBytes - entryCost(pruneID(0, 0)) }

// Len and Bytes report the store's size (for health and tests).
func (s *MemoryStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lru.Len()
}

// Bytes reports what the store counts against its cap: its distinct texts' bytes and, per
// entry, its id and StoreEntryOverhead.
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
	s.bytes -= entryCost(e.id)
	if e.text.refs--; e.text.refs == 0 {
		delete(s.texts, e.text.text)
		s.bytes -= int64(len(e.text.text))
	}
}
