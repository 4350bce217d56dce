package server

import (
	"bytes"
	"cmp"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxSessions is how many /mcp sessions may be open at once by default: far more than
// the agents of one machine hold, and at about 5 KB and a goroutine each, little memory.
const DefaultMaxSessions = 1000

// sessionHeader carries a Streamable HTTP session's id.
const sessionHeader = "Mcp-Session-Id"

// sessionCap bounds the open /mcp sessions. The SDK closes a session only on DELETE or after
// its idle timeout, and clients often send no DELETE (the TypeScript SDK's close() does not);
// one that initializes for every call would pile up a session per call for the whole timeout.
// Past max, a new session closes the least recently used session that has no request in
// flight; its client gets 404 on its next request, which tells it to initialize again.
//
// An idle session also holds its latest request's body (the SDK keeps it until the session's
// next message or its end): a hundred sessions left after one 2 MB prune each held 200 MB,
// outside the recovery store's cap. So the bodies idle sessions hold are bounded too
// (maxHeld): past it, the least recently used idle sessions are closed, as above.
type sessionCap struct {
	srv     *mcp.Server
	max     int
	maxHeld int64
	log     *slog.Logger

	mu    sync.Mutex
	clock uint64
	use   map[string]*sessionUse // by session id, once the request creating it has returned
	held  int64                  // the held bytes of every entry of use
	// creating counts the requests in flight that may create a session (POSTs with no id).
	creating atomic.Int32
}

type sessionUse struct {
	last    uint64 // clock when its latest request began
	busy    int    // its requests in flight
	created bool   // the request that created it has returned
	held    int64  // the body size of its latest request, which the SDK holds while it idles
}

// DefaultMaxIdleSessionBytes bounds the request bodies idle /mcp sessions hold.
const DefaultMaxIdleSessionBytes = 64 << 20

func newSessionCap(srv *mcp.Server, max int, log *slog.Logger) *sessionCap {
	return &sessionCap{srv: srv, max: max, maxHeld: DefaultMaxIdleSessionBytes, log: log, use: map[string]*sessionUse{}}
}

// countingBody counts the bytes read from a request body.
type countingBody struct {
	io.ReadCloser
	n int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	return n, err
}

// wrap counts the requests of each session around next, the Streamable HTTP handler, and
// makes room before a request that may create a session.
func (c *sessionCap) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := &countingBody{ReadCloser: r.Body}
		r.Body = body
		id := r.Header.Get(sessionHeader)
		if id == "" {
			if r.Method == http.MethodPost && opensSession(r) {
				c.creating.Add(1)
				defer c.creating.Add(-1)
				c.makeRoom()
			}
			next.ServeHTTP(w, r)
			if id = w.Header().Get(sessionHeader); id != "" {
				c.created(id, body.n)
			}
			return
		}
		c.begin(id)
		next.ServeHTTP(w, r)
		// Only a POST replaces the body the SDK holds for the session: a GET stream or a
		// DELETE ending must not count it as holding nothing (the TypeScript client's GET
		// stream closes when its agent exits, the very case the bound is for).
		held := int64(-1)
		if r.Method == http.MethodPost {
			held = body.n
		}
		c.end(id, held)
	})
}

func (c *sessionCap) created(id string, held int64) {
	c.mu.Lock()
	u := c.use[id]
	if u == nil {
		c.clock++
		u = &sessionUse{last: c.clock}
		c.use[id] = u
	}
	u.created = true
	if u.busy == 0 {
		c.setHeld(u, held)
	}
	victims := c.overHeldLocked(id)
	c.mu.Unlock()
	c.close(victims, "the request bodies idle sessions hold are past their bound")
}

// setHeld records that u now holds held bytes.
func (c *sessionCap) setHeld(u *sessionUse, held int64) {
	c.held += held - u.held
	u.held = held
}

// forget drops id's entry.
func (c *sessionCap) forget(id string) {
	if u := c.use[id]; u != nil {
		c.held -= u.held
		delete(c.use, id)
	}
}

// overHeldLocked picks idle sessions to close, least recently used first, until the bodies
// they hold are within maxHeld, and forgets them. keep (the session whose request just
// ended) is never picked: a client is not sent to initialize again for its own call.
func (c *sessionCap) overHeldLocked(keep string) []string {
	if c.held <= c.maxHeld {
		return nil
	}
	var idle []string
	for id, u := range c.use {
		if u.busy == 0 && u.created && u.held > 0 && id != keep {
			idle = append(idle, id)
		}
	}
	slices.SortFunc(idle, func(a, b string) int { return cmp.Compare(c.use[a].last, c.use[b].last) })
	var victims []string
	for _, id := range idle {
		if c.held <= c.maxHeld {
			break
		}
		c.forget(id)
		victims = append(victims, id)
	}
	return victims
}

// close ends the sessions ids, saying why.
func (c *sessionCap) close(ids []string, why string) {
	if len(ids) == 0 || c.srv == nil {
		return
	}
	for ss := range c.srv.Sessions() {
		if slices.Contains(ids, ss.ID()) {
			c.log.Info("closing the least recently used idle MCP session: "+why, "session_id", ss.ID(), "max_idle_session_bytes", c.maxHeld)
			ss.Close()
		}
	}
}

// begin counts a request of session id in flight. The client has the id once the initialize
// answer is written, before the request that created the session has returned here, so a call
// may begin first: it is counted all the same, or makeRoom could close its session under it.
func (c *sessionCap) begin(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	u := c.use[id]
	if u == nil {
		u = &sessionUse{}
		c.use[id] = u
	}
	c.clock++
	u.last = c.clock
	u.busy++
}

// end counts a request of session id done, whose body was held bytes (-1: a request that
// leaves the held body as it was). An entry begin made
// for an id that is not (yet) a created session goes once idle: an id the server never gave
// is the SDK's 404, and must not stay in the map.
func (c *sessionCap) end(id string, held int64) {
	c.mu.Lock()
	var victims []string
	if u := c.use[id]; u != nil {
		if held >= 0 {
			c.setHeld(u, held)
		}
		if u.busy--; u.busy == 0 && !u.created {
			c.forget(id)
		}
		victims = c.overHeldLocked(id)
	}
	c.mu.Unlock()
	c.close(victims, "the request bodies idle sessions hold are past their bound")
}

// makeRoom closes sessions, least recently used first, until a new one keeps the open ones
// within max. Sessions with a request in flight are never closed, nor are those whose
// creating request has not returned yet; if only such sessions remain, the bound gives.
func (c *sessionCap) makeRoom() {
	open := slices.Collect(c.srv.Sessions())
	c.mu.Lock()
	ids := make(map[string]bool, len(open))
	for _, ss := range open {
		ids[ss.ID()] = true
	}
	for id := range c.use {
		if !ids[id] { // ended by DELETE, its idle timeout or a failed initialize
			c.forget(id)
		}
	}
	// A listed session with no entry is one whose creating request has not returned, or one
	// whose creating request never reported it (a client's first initialize can leave one).
	// With no other creating request in flight than this one, it is the second kind: it counts
	// as the least recently used, or it would hold a place under the bound for good.
	if c.creating.Load() <= 1 {
		for _, ss := range open {
			if c.use[ss.ID()] == nil {
				c.use[ss.ID()] = &sessionUse{created: true}
			}
		}
	}
	excess := len(open) + 1 - c.max
	var victims []*mcp.ServerSession
	if excess > 0 {
		for _, ss := range open {
			if u := c.use[ss.ID()]; u != nil && u.busy == 0 {
				victims = append(victims, ss)
			}
		}
		slices.SortFunc(victims, func(a, b *mcp.ServerSession) int {
			return cmp.Compare(c.use[a.ID()].last, c.use[b.ID()].last)
		})
		victims = victims[:min(excess, len(victims))]
		for _, ss := range victims {
			c.forget(ss.ID())
		}
	}
	c.mu.Unlock()
	for _, ss := range victims {
		c.log.Info("closing the least recently used MCP session: too many sessions open", "session_id", ss.ID(), "max_sessions", c.max)
		ss.Close()
	}
}

// opensSession reports whether POST r is an initialize, the one request that makes a session:
// only for it does a full server close a session to make room. A ping, a notification or bad
// JSON without a session id used to close a live session at the cap and open none. It reads
// the body's first bytes (a request names its method there: memberOfHead) and puts them back.
func opensSession(r *http.Request) bool {
	head := make([]byte, requestHead)
	n, _ := io.ReadFull(r.Body, head)
	head = head[:n]
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
	return string(memberOfHead(head, "method")) == `"initialize"`
}
