package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcp-pruner/mcp-pruner/server"
	"github.com/mcp-pruner/mcp-pruner/server/gcfloor"
)

// serveConfig is pruner serve's HTTP configuration. Flags win over the MCP_PRUNER_*
// environment, which wins over defaults.
type serveConfig struct {
	host             string
	port             int
	addr             string
	authToken        string
	allowedHosts     string
	allowedOrigins   string
	maxBodyBytes     int64
	allowRemoteNoTok bool
	shutdownTimeout  time.Duration
	readTimeout      time.Duration
	maxConcurrent    int
	maxSessions      int
	heapFloorMB      int64
	logging          logConfig
	content          mcpContent
}

func (c *serveConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&c.host, "host", "127.0.0.1", "interface to listen on (env MCP_PRUNER_HOST); non-loopback needs --auth-token")
	fs.IntVar(&c.port, "port", 8006, "TCP port; 0 picks a free one, logged as addr=... (env MCP_PRUNER_PORT)")
	fs.StringVar(&c.addr, "addr", "", "host:port to listen on, overriding --host and --port (e.g. 127.0.0.1:0)")
	fs.StringVar(&c.authToken, "auth-token", "", "require 'Authorization: Bearer <token>' on every endpoint but GET /health (env MCP_PRUNER_AUTH_TOKEN)")
	fs.StringVar(&c.allowedHosts, "allowed-hosts", "", "extra Host header names accepted, comma-separated, '*' for any; loopback names and --host are always accepted (env MCP_PRUNER_ALLOWED_HOSTS)")
	fs.StringVar(&c.allowedOrigins, "allowed-origins", "", "extra browser Origins accepted (scheme://host[:port]), comma-separated, '*' for any (env MCP_PRUNER_ALLOWED_ORIGINS)")
	fs.Int64Var(&c.maxBodyBytes, "max-body-bytes", 0, "largest HTTP request body; larger ones get input_too_large (default 6 x max-input-chars + 1 MiB) (env MCP_PRUNER_MAX_BODY_BYTES)")
	fs.BoolVar(&c.allowRemoteNoTok, "allow-remote-without-token", false, "allow a non-loopback --host without --auth-token (anyone who can reach the port can use the server)")
	fs.IntVar(&c.maxConcurrent, "max-concurrent-prunes", 0, "prunes run at once; others queue, the wait counting against their timeout_ms. A value fixes the bound; by default it adapts: CPUs - 1 (at least 1) while prunes are cheap, so a spare CPU keeps reading requests, and all CPUs while recent prunes take a millisecond or more each (code never seen before, large texts) (env MCP_PRUNER_MAX_CONCURRENT_PRUNES)")
	fs.IntVar(&c.maxSessions, "max-sessions", server.DefaultMaxSessions, "MCP sessions open at once on /mcp; past it, a new session closes the least recently used one with no request in flight, whose client gets 404 and initializes again (env MCP_PRUNER_MAX_SESSIONS)")
	fs.DurationVar(&c.shutdownTimeout, "shutdown-timeout", 10*time.Second, "on SIGINT/SIGTERM, how long in-flight requests may take to finish")
	fs.DurationVar(&c.readTimeout, "read-timeout", server.DefaultReadTimeout, "how long a client may take to send a request, body included; a slower upload is dropped (requests may still run and stream as long as they need)")
	fs.Int64Var(&c.heapFloorMB, "heap-floor-mb", gcfloor.DefaultBytes>>20, "MiB the heap may grow to before the garbage collector runs, while what it holds is small (a fresh server collecting every few tens of milliseconds under load); past it, GOGC rules as usual. 0 turns it off (env MCP_PRUNER_HEAP_FLOOR_MB)")
	c.logging.register(fs)
	c.content.register(fs)
}

func (c *serveConfig) applyEnv(e env) error {
	if v, ok := lookupEnv("MCP_PRUNER_HOST"); ok && !e.explicit["host"] && !e.explicit["addr"] {
		c.host = v
	}
	portFlag := "port"
	if e.explicit["addr"] {
		portFlag = "addr" // --addr says the port too
	}
	if err := e.int64("MCP_PRUNER_PORT", portFlag, 0, 65535, "want a port number 0..65535", func(n int64) { c.port = int(n) }); err != nil {
		return err
	}
	e.str("MCP_PRUNER_AUTH_TOKEN", "auth-token", &c.authToken)
	e.str("MCP_PRUNER_ALLOWED_HOSTS", "allowed-hosts", &c.allowedHosts)
	e.str("MCP_PRUNER_ALLOWED_ORIGINS", "allowed-origins", &c.allowedOrigins)
	if err := e.int64("MCP_PRUNER_MAX_BODY_BYTES", "max-body-bytes", 0, math.MaxInt64, "want an integer >= 0 (0: the default)", func(n int64) { c.maxBodyBytes = n }); err != nil {
		return err
	}
	if err := e.int64("MCP_PRUNER_MAX_CONCURRENT_PRUNES", "max-concurrent-prunes", 0, math.MaxInt32, "want an integer >= 0 (0: the adaptive bound)", func(n int64) { c.maxConcurrent = int(n) }); err != nil {
		return err
	}
	if err := e.int64("MCP_PRUNER_MAX_SESSIONS", "max-sessions", 1, math.MaxInt32, "want a positive integer", func(n int64) { c.maxSessions = int(n) }); err != nil {
		return err
	}
	if err := e.int64("MCP_PRUNER_HEAP_FLOOR_MB", "heap-floor-mb", 0, maxHeapFloorMB, "want an integer 0..1048576 (0: off)", func(n int64) { c.heapFloorMB = n }); err != nil {
		return err
	}
	if err := c.content.applyEnv(e); err != nil {
		return err
	}
	return c.logging.applyEnv(e)
}

// maxHeapFloorMB bounds --heap-floor-mb at 1 TiB.
const maxHeapFloorMB = 1 << 20

// listenAddr validates the address flags and returns host:port.
func (c *serveConfig) listenAddr() (string, error) {
	switch {
	case c.port < 0 || c.port > 65535:
		return "", usagef("--port must be 0..65535, got %d", c.port)
	case c.maxBodyBytes < 0:
		return "", usagef("--max-body-bytes must be >= 0 (0: the default), got %d", c.maxBodyBytes)
	case c.maxConcurrent < 0:
		return "", usagef("--max-concurrent-prunes must be >= 0 (0: the adaptive bound), got %d", c.maxConcurrent)
	case c.maxSessions <= 0:
		return "", usagef("--max-sessions must be >= 1, got %d", c.maxSessions)
	case c.shutdownTimeout <= 0:
		return "", usagef("--shutdown-timeout must be positive, got %s", c.shutdownTimeout)
	case c.readTimeout <= 0:
		return "", usagef("--read-timeout must be positive, got %s", c.readTimeout)
	case c.heapFloorMB < 0 || c.heapFloorMB > maxHeapFloorMB:
		return "", usagef("--heap-floor-mb must be 0..%d (0: off), got %d", maxHeapFloorMB, c.heapFloorMB)
	}
	if c.addr != "" {
		host, port, err := net.SplitHostPort(c.addr)
		if err != nil {
			return "", usagef("--addr %q: want host:port (e.g. 127.0.0.1:0)", c.addr)
		}
		if _, err := strconv.ParseUint(port, 10, 16); err != nil {
			return "", usagef("--addr %q: bad port", c.addr)
		}
		c.host = host
		return c.addr, nil
	}
	return net.JoinHostPort(c.host, strconv.Itoa(c.port)), nil
}

// isLoopback reports whether host only accepts connections from this machine.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func runServe(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(newFlagOutput(stdout, stderr))
	var (
		ecfg engineConfig
		scfg serveConfig
	)
	ecfg.register(fs, serverFlags)
	scfg.register(fs)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `Usage: pruner serve [flags]

Serves the prune_text, recover_text and health tools over HTTP:
  POST /rpc     JSON-RPC 2.0 (seed contract; plain curl works, no handshake needed)
  POST /mcp     MCP Streamable HTTP (for MCP clients and inspectors)
  POST /prune   SWE-Pruner's API {query, code, threshold?}
  GET  /health  status (seed fields plus SWE-Pruner's status/model_loaded)
Logs go to stderr; the first one says addr=HOST:PORT. SIGINT/SIGTERM finish in-flight requests.

Examples:
  pruner serve                                  # 127.0.0.1:8006, default scorers
  pruner serve --port 0 --scorer heuristic      # a free port, logged as addr=...
  pruner serve --host 0.0.0.0 --auth-token "$TOKEN"
  curl -s -d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' http://127.0.0.1:8006/rpc

Flags:
`)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, &ecfg, &scfg); err != nil {
		return err
	}
	addr, err := scfg.listenAddr()
	if err != nil {
		return err
	}
	if !isLoopback(scfg.host) && scfg.authToken == "" && !scfg.allowRemoteNoTok {
		return usagef("refusing to listen on non-loopback host %q without --auth-token (or MCP_PRUNER_AUTH_TOKEN); pass --allow-remote-without-token to do it anyway", scfg.host)
	}
	logger, err := scfg.logging.logger(stderr)
	if err != nil {
		return err
	}
	ecfg.pluginLogs = &logLines{log: logger.With("component", "plugins")}
	b, err := buildEngine(ctx, &ecfg)
	if err != nil {
		return err
	}
	defer b.reg.Close()

	hosts := append([]string{}, server.LoopbackHosts...)
	if h := strings.Trim(scfg.host, "[]"); h != "" && h != "0.0.0.0" && h != "::" {
		hosts = append(hosts, h)
	}
	hosts = append(hosts, splitList(scfg.allowedHosts)...)
	srv, err := server.New(server.Config{
		Engine: b.engine, Version: version, Logger: logger,
		AllowedHosts: hosts, AllowedOrigins: splitList(scfg.allowedOrigins),
		AuthToken: scfg.authToken, MaxBodyBytes: scfg.maxBodyBytes, ShutdownTimeout: scfg.shutdownTimeout,
		MaxConcurrentPrunes: scfg.maxConcurrent, ReadTimeout: scfg.readTimeout, MaxSessions: scfg.maxSessions,
		MCPText: scfg.content.text(),
	})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	defer gcfloor.Start(uint64(scfg.heapFloorMB) << 20)()
	return srv.Serve(ctx, ln)
}

// logConfig selects the structured log level and format; logs always go to stderr.
type logConfig struct {
	level  string
	format string
}

func (c *logConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&c.level, "log-level", "info", "debug, info, warn or error; under serve, debug adds one line per HTTP request and one each time the prune slots widen or narrow (env MCP_PRUNER_LOG_LEVEL)")
	fs.StringVar(&c.format, "log-format", "text", "text or json (env MCP_PRUNER_LOG_FORMAT)")
}

func (c *logConfig) applyEnv(e env) error {
	e.str("MCP_PRUNER_LOG_LEVEL", "log-level", &c.level)
	e.str("MCP_PRUNER_LOG_FORMAT", "log-format", &c.format)
	return nil
}

func (c *logConfig) logger(w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.level)); err != nil {
		return nil, usagef("--log-level (MCP_PRUNER_LOG_LEVEL) %q: want debug, info, warn or error", c.level)
	}
	opts := &slog.HandlerOptions{Level: level}
	switch c.format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	default:
		return nil, usagef("--log-format (MCP_PRUNER_LOG_FORMAT) %q: want text or json", c.format)
	}
}

// logLines is an io.Writer whose every line becomes one record of log: what the plugin host
// writes of its plugins (restarts, go-plugin's hclog lines, a plugin's own stderr), so that
// the server's log stays one format, JSON with --log-format json. An hclog line's level
// ("… [ERROR] plugin.x: …") becomes the record's; other lines are warnings.
type logLines struct {
	log     *slog.Logger
	mu      sync.Mutex
	partial []byte
}

func (w *logLines) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			break
		}
		w.emit(string(w.partial[:i]))
		w.partial = w.partial[i+1:]
	}
	if len(w.partial) > 64<<10 { // a line that never ends is logged in pieces
		w.emit(string(w.partial))
		w.partial = w.partial[:0]
	}
	return len(p), nil
}

func (w *logLines) emit(line string) {
	line = strings.TrimSpace(line)
	if line == "" {
		return
	}
	level := slog.LevelWarn
	if i := strings.IndexByte(line, '['); i >= 0 && (i == 0 || line[i-1] == ' ') {
		if j := strings.Index(line[i:], "] "); j > 0 {
			known := true
			switch line[i+1 : i+j] {
			case "ERROR":
				level = slog.LevelError
			case "WARN":
				level = slog.LevelWarn
			case "INFO":
				level = slog.LevelInfo
			case "DEBUG", "TRACE":
				level = slog.LevelDebug
			default:
				known = false
			}
			if known {
				line = line[i+j+2:]
			}
		}
	}
	w.log.Log(context.Background(), level, line)
}

// mcpContent is --mcp-content, shared by serve and stdio: what a prune_text or recover_text
// result's text content holds over MCP.
type mcpContent struct{ v string }

func (c *mcpContent) register(fs *flag.FlagSet) {
	fs.StringVar(&c.v, "mcp-content", "json", "over MCP (/mcp, stdio), what a prune_text or recover_text result's text content holds: json (the payload, as /rpc answers) or text (the pruned text or the recovered lines themselves, with a last line when the text came back unchanged, with warnings or cut without markers; the payload stays in structuredContent). text is what a model reads most cheaply (env MCP_PRUNER_MCP_CONTENT)")
}

func (c *mcpContent) applyEnv(e env) error {
	e.str("MCP_PRUNER_MCP_CONTENT", "mcp-content", &c.v)
	if c.v != "json" && c.v != "text" {
		return usagef("--mcp-content (MCP_PRUNER_MCP_CONTENT) %q: want json or text", c.v)
	}
	return nil
}

// text reports whether results carry their text as content.
func (c *mcpContent) text() bool { return c.v == "text" }
