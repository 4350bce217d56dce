package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"sync"
	"time"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Config configures a Server. Engine is required; everything else has a safe default.
type Config struct {
	Engine  *engine.Engine
	Version string
	// Logger receives structured logs; nil discards them.
	Logger *slog.Logger
	// AllowedHosts are the Host header names (without port) HTTP requests may carry, against
	// DNS rebinding. "*" allows any. Nil means the loopback names only.
	AllowedHosts []string
	// AllowedOrigins are extra browser origins (scheme://host[:port]) allowed besides origins
	// whose host is an allowed host. "*" allows any.
	AllowedOrigins []string
	// AuthToken, when set, is required as "Authorization: Bearer <token>" on every HTTP
	// endpoint except GET /health.
	AuthToken string
	// MaxBodyBytes bounds HTTP request bodies and stdio frames; 0 means DefaultMaxBodyBytes(engine).
	MaxBodyBytes int64
	// ShutdownTimeout bounds how long Serve waits for in-flight requests, and how long
	// RunStdio, once its input ends, waits for the next answer to a call it has read (each
	// answer restarts the wait); 0 means 10s.
	ShutdownTimeout time.Duration
	// Now is the clock for health timestamps; nil means time.Now.
	Now func() time.Time
	// ReadTimeout bounds how long an HTTP client may take to send a whole request, headers and
	// body (Serve's http.Server.ReadTimeout); a slower upload is dropped rather than kept in
	// memory. It does not limit how long a request may then run or stream: net/http clears the
	// deadline once the body is read (GET /mcp event streams stay open). 0 means
	// DefaultReadTimeout.
	ReadTimeout time.Duration
	// MaxConcurrentPrunes bounds the prunes running at once (others queue, the wait counting
	// against their timeout_ms); 0 means a bound that adapts between the two values of
	// DefaultPruneSlots(GOMAXPROCS).
	MaxConcurrentPrunes int
	// MaxSessions bounds the MCP sessions open at once on /mcp: past it, a new session closes
	// the least recently used one that has no request in flight. 0 means DefaultMaxSessions.
	MaxSessions int
	// MCPText makes the text content of a prune_text or recover_text result over /mcp and
	// stdio the pruned text or the recovered lines themselves, instead of the JSON payload
	// (which stays in structuredContent): what a model reads is then the text, not the text
	// escaped inside JSON beside annotations that repeat every marker. /rpc is unchanged.
	MCPText bool
}

// DefaultMaxBodyBytes is the default body limit: room for a text at the engine's character
// limit even if every character took 6 bytes, plus the envelope. 6 is a character of the
// Basic Multilingual Plane escaped as \uXXXX, which Python's json.dumps and requests do by
// default (CJK text, for one); at 5, 1.9 M such characters were refused. A character past
// it (an emoji) escapes to 12 bytes, so a text of those fits to half the limit.
func DefaultMaxBodyBytes(maxInputChars int) int64 {
	return int64(maxInputChars)*6 + 1<<20
}

// DefaultReadTimeout is how long a client may take to send a request by default: the largest
// default body (about 13 MB) at about 100 KB/s, and milliseconds on loopback.
const DefaultReadTimeout = 2 * time.Minute

// idleTimeout bounds how long a keep-alive connection may wait for its next request: longer
// than common clients' idle pools (Go's is 90 s), so a client rarely reuses a connection the
// server has just closed, yet an abandoned one does not stay open for ever.
const idleTimeout = 5 * time.Minute

// DefaultPruneSlots is the default bound on prunes running at once with procs GOMAXPROCS:
// narrow while prunes are cheap, wide while they are heavy (see admission).
//
// Narrow is one fewer than procs, at least 1. Go's scheduler looks for network events only
// when a run queue is empty (or every 10 ms from its monitor); with a runnable prune on
// every P, requests sat unread in their sockets and reached the FIFO queue in bursts, which
// spread latencies (p99 about 3.3 x p50 at 32 clients on 2 cores, against 2.45 x with one
// slot; see benchmarks/RESULTS.md). A spare P reads requests and writes answers as they
// come. Wide is procs: when each prune costs ten times a request's I/O, the spare P is
// better spent pruning (never-seen 200-line code on 2 cores: 600–940 prunes/s against
// 445–536 with one slot).
func DefaultPruneSlots(procs int) (narrow, wide int) {
	return max(1, procs-1), max(1, procs)
}

// ElsewherePruneSlots bounds the prunes running at once whose scorer runs in another process
// (a plugin, a SWE-Pruner server; engine.Elsewhere), apart from the CPU-bound ones: such a
// prune mostly waits, so it must not hold one of the few CPU slots, where a plugin call that
// hangs until its deadline stopped every other prune on 2 cores. This bound still keeps a
// stuck plugin from gathering requests without limit.
const ElsewherePruneSlots = 64

// Server serves the tools over every transport.
type Server struct {
	tools           *toolset
	version         string
	log             *slog.Logger
	ids             *idSource
	maxBody         int64
	authToken       string
	hosts           map[string]bool
	anyHost         bool
	origins         map[string]bool
	anyOrigin       bool
	shutdownTimeout time.Duration
	readTimeout     time.Duration
	mcpHTTP         *mcp.Server
	sessions        *sessionCap
	uploads         uploads
	mcpText         bool

	inflightMu sync.Mutex
	inflight   int
	idle       *sync.Cond
}

// LoopbackHosts are the Host names allowed by default. They include the unspecified addresses
// 0.0.0.0 and ::, which reach this machine: a server bound to 0.0.0.0 prints URLs with it
// (SWE-Pruner's does, and its clients' setups hold "http://0.0.0.0:8000/prune"). No DNS
// rebinding sends them, and a page that targets them directly still sends its Origin.
var LoopbackHosts = []string{"localhost", "127.0.0.1", "::1", "0.0.0.0", "::"}

// New returns a server for cfg.
func New(cfg Config) (*Server, error) {
	if cfg.Engine == nil {
		return nil, errors.New("server: Engine is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes(cfg.Engine.MaxInputChars())
	}
	if cfg.MaxBodyBytes < 0 {
		return nil, fmt.Errorf("server: MaxBodyBytes must be positive, got %d", cfg.MaxBodyBytes)
	}
	if cfg.ShutdownTimeout == 0 {
		cfg.ShutdownTimeout = 10 * time.Second
	}
	if cfg.ReadTimeout == 0 {
		cfg.ReadTimeout = DefaultReadTimeout
	}
	if cfg.ReadTimeout < 0 {
		return nil, fmt.Errorf("server: ReadTimeout must be positive, got %s", cfg.ReadTimeout)
	}
	if cfg.MaxSessions == 0 {
		cfg.MaxSessions = DefaultMaxSessions
	}
	if cfg.MaxSessions < 0 {
		return nil, fmt.Errorf("server: MaxSessions must be positive, got %d", cfg.MaxSessions)
	}
	if cfg.MaxConcurrentPrunes < 0 {
		return nil, fmt.Errorf("server: MaxConcurrentPrunes must be positive, got %d", cfg.MaxConcurrentPrunes)
	}
	narrow, wide := cfg.MaxConcurrentPrunes, cfg.MaxConcurrentPrunes
	if narrow == 0 {
		narrow, wide = DefaultPruneSlots(runtime.GOMAXPROCS(0))
	}
	if cfg.AllowedHosts == nil {
		cfg.AllowedHosts = LoopbackHosts
	}
	s := &Server{
		version: cfg.Version, log: cfg.Logger, ids: newIDSource(), maxBody: cfg.MaxBodyBytes,
		authToken: cfg.AuthToken, hosts: map[string]bool{}, origins: map[string]bool{},
		shutdownTimeout: cfg.ShutdownTimeout, readTimeout: cfg.ReadTimeout, mcpText: cfg.MCPText,
	}
	s.idle = sync.NewCond(&s.inflightMu)
	for _, h := range cfg.AllowedHosts {
		if h == "*" {
			s.anyHost = true
		}
		s.hosts[normHost(h)] = true
	}
	for _, o := range cfg.AllowedOrigins {
		if o == "*" {
			s.anyOrigin = true
		}
		s.origins[normOrigin(o)] = true
	}
	admit := newAdmission(narrow, wide)
	admit.log = cfg.Logger
	s.tools = newToolset(cfg.Engine, cfg.Version, cfg.Now, cfg.Logger, admit)
	s.tools.elsewhere = newAdmission(ElsewherePruneSlots, ElsewherePruneSlots)
	s.mcpHTTP = s.newMCPServer("mcp", nil)
	s.sessions = newSessionCap(s.mcpHTTP, cfg.MaxSessions, cfg.Logger)
	return s, nil
}

// toolInfo is one tools/list entry.
type toolInfo struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	InputSchema *Schema `json:"inputSchema"`
}

func (s *Server) listTools() map[string][]toolInfo {
	out := make([]toolInfo, 0, len(s.tools.list))
	for _, t := range s.tools.list {
		out = append(out, toolInfo{Name: t.Name, Description: t.Description, InputSchema: t.Schema})
	}
	return map[string][]toolInfo{"tools": out}
}

type initializeResult struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Capabilities    map[string]any `json:"capabilities"`
	ServerInfo      map[string]any `json:"serverInfo"`
	Instructions    string         `json:"instructions"`
}

func (s *Server) initializeResult(clientVersion string) *initializeResult {
	v := clientVersion
	if v == "" {
		v = DefaultProtocolVersion
	}
	return &initializeResult{
		ProtocolVersion: v,
		Capabilities: map[string]any{
			"tools":     map[string]bool{"listChanged": false},
			"resources": map[string]bool{"listChanged": false, "subscribe": false},
			"prompts":   map[string]bool{"listChanged": false},
		},
		ServerInfo:   map[string]any{"name": ServerName, "version": s.version},
		Instructions: instructions,
	}
}

// Handler returns the HTTP handler: /rpc, /mcp, /prune and /health behind the Host/Origin
// guard, the bearer token check, request ids and access logs.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/rpc", &rpcHandler{s: s})
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcpHTTP }, &mcp.StreamableHTTPOptions{
		Logger:                     s.log.With("component", "mcp-sdk"),
		MaxRequestBodyBytes:        s.maxBody,
		SessionTimeout:             30 * time.Minute,
		DisableLocalhostProtection: true, // the guard below checks Host and Origin on every endpoint
	})
	mux.Handle("/mcp", s.trackInflight(s.sessions.wrap(tooLargeAsRPC(s.maxBody, methodNotFoundAsRPC(fixCodeZeroErrors(mcpHandler))))))
	mux.HandleFunc("POST /prune", s.servePrune)
	mux.HandleFunc("POST /prune/{$}", s.servePrune) // FastAPI (SWE-Pruner) redirects it to /prune
	mux.HandleFunc("GET /health", s.serveHealth)
	// Another method on these paths is a 405 naming the one that works, not the catch-all's 404.
	mux.HandleFunc("/prune", methodNotAllowed(http.MethodPost))
	mux.HandleFunc("/health", methodNotAllowed(http.MethodGet))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "not found", "endpoints": "POST /rpc, POST /mcp, POST /prune, GET /health"})
	})
	return s.uploads.watch(s.guard(mux))
}

func methodNotAllowed(allow string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "method not allowed", "allow": allow})
	}
}

// trackInflight counts /mcp POSTs so shutdown can let them finish before it closes the MCP
// sessions (whose open GET streams would otherwise hold Shutdown until its timeout).
func (s *Server) trackInflight(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			h.ServeHTTP(w, r)
			return
		}
		s.inflightMu.Lock()
		s.inflight++
		s.inflightMu.Unlock()
		defer func() {
			s.inflightMu.Lock()
			s.inflight--
			if s.inflight == 0 {
				s.idle.Broadcast()
			}
			s.inflightMu.Unlock()
		}()
		h.ServeHTTP(w, r)
	})
}

// warnSmallStore logs at start-up when the recovery store cannot hold a text at the input
// limit (counting a byte per character): a small store may be what the operator wants, but
// every text it cannot hold comes back unchanged with warning recovery_unavailable.
func (s *Server) warnSmallStore() {
	st, ok := s.tools.eng.Store().(interface{ LargestText() int64 })
	if !ok {
		return
	}
	if limit := s.tools.eng.MaxInputChars(); st.LargestText() < int64(limit) {
		s.log.Warn("recovery store smaller than the input limit: texts it cannot hold come back unchanged with warning recovery_unavailable",
			"largest_stored_text_bytes", st.LargestText(), "max_input_chars", limit)
	}
}

func (s *Server) waitIdle() {
	s.inflightMu.Lock()
	defer s.inflightMu.Unlock()
	for s.inflight > 0 {
		s.idle.Wait()
	}
}

// Serve serves HTTP on ln until ctx is cancelled, then stops accepting, lets in-flight
// requests finish (up to the shutdown timeout) and returns.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       s.readTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	hs.RegisterOnShutdown(func() {
		s.waitIdle()
		for ss := range s.mcpHTTP.Sessions() {
			ss.Close()
		}
	})
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	s.log.Info("listening", "addr", ln.Addr().String(), "version", s.version,
		"endpoints", "POST /rpc, POST /mcp, POST /prune, GET /health")
	s.warnSmallStore()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.log.Info("shutting down: finishing in-flight requests", "timeout", s.shutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.shutdownTimeout)
	defer cancel()
	// A request whose body has not arrived yet is not in flight yet: it gets half the
	// timeout to arrive, so a stalled upload cannot hold the shutdown for the whole of it.
	s.uploads.stop(s.shutdownTimeout / 2)
	err := hs.Shutdown(sctx)
	<-errc
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	s.log.Info("stopped")
	return nil
}
