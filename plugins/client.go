package plugins

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/plugins/internal/scorerpb"
)

// Errors a Client returns (wrapped). The engine turns each into a fail-open result with
// warning scorer_error; a plugin that misses the caller's deadline gives warning timeout.
var (
	// ErrUnavailable: the plugin is not running and is not restarted yet (backoff after
	// failures), or it died during the call.
	ErrUnavailable = errors.New("plugin unavailable")
	// ErrStart: the plugin process could not be started or did not complete the handshake.
	ErrStart = errors.New("plugin did not start")
	// ErrChecksum: the binary does not match the pinned SHA-256; it is never run.
	ErrChecksum = errors.New("plugin checksum mismatch")
	// ErrTimeout: the plugin did not answer within its configured Timeout (shorter than the
	// caller's deadline).
	ErrTimeout = errors.New("plugin timed out")
	// ErrClosed: the Client was closed.
	ErrClosed = errors.New("plugin client closed")
)

// StartMode says when a plugin process starts.
type StartMode string

const (
	// StartLazy starts the process on the first Score (the default).
	StartLazy StartMode = "lazy"
	// StartEager starts it when the Client is created, so a broken plugin fails start-up.
	StartEager StartMode = "eager"
)

// Config describes one plugin. Command and SHA256 are required.
type Config struct {
	// Name identifies the plugin in errors, logs and listings.
	Name string
	// Command is the plugin binary; Args and Env are passed to it (Env adds to the host's
	// environment and wins over it for a key both set).
	Command string
	Args    []string
	Env     []string
	// SHA256 is the hex SHA-256 of the Command binary; a binary that differs is refused.
	SHA256 string
	// Timeout caps each Score call on top of the caller's deadline; 0 means no cap.
	Timeout time.Duration
	// Start is StartLazy (default) or StartEager.
	Start StartMode
	// StartTimeout bounds the handshake of a starting process; 0 means 10 s.
	StartTimeout time.Duration
	// HangGrace is how long a call may ignore its cancelled context before the process
	// counts as hung and is replaced; 0 means 1 s.
	HangGrace time.Duration
	// BackoffMin and BackoffMax bound the delay between restarts after repeated failures
	// (the first restart after a failure is immediate); 0 means 100 ms and 30 s.
	BackoffMin, BackoffMax time.Duration
	// Logs receives the plugin's warnings and go-plugin's; nil discards them.
	Logs io.Writer
}

func (c *Config) setDefaults() {
	if c.Start == "" {
		c.Start = StartLazy
	}
	if c.StartTimeout <= 0 {
		c.StartTimeout = 10 * time.Second
	}
	if c.HangGrace <= 0 {
		c.HangGrace = time.Second
	}
	if c.BackoffMin <= 0 {
		c.BackoffMin = 100 * time.Millisecond
	}
	if c.BackoffMax <= 0 {
		c.BackoffMax = 30 * time.Second
	}
	if c.Logs == nil {
		c.Logs = io.Discard
	}
}

// Client runs a scorer plugin process and implements engine.Scorer, engine.Describer and
// io.Closer. Calls carry the caller's context and deadline into the plugin. A process that
// crashes, hangs past its deadline or fails to start is replaced on a later call, with
// exponential backoff between failed attempts. It is safe for concurrent use.
type Client struct {
	cfg      Config
	checksum []byte

	// info is what the plugin said at its last start. It has no share in mu so that
	// Describe, which the engine calls after every Score and under its registry's lock,
	// never waits for a start.
	info atomic.Pointer[engine.ScorerInfo]

	mu       sync.Mutex
	proc     *process
	starting *startAttempt // the start in progress, nil when none
	failures int           // consecutive failures since the last good answer
	retryAt  time.Time
	starts   int
	closed   bool

	closing chan struct{}
	// checks counts background work (hang checks and starts); checkDone is signalled as each
	// ends. A cond, not a WaitGroup, because both begin from calls the engine may already
	// have left.
	checks    int
	checkDone *sync.Cond
}

// startAttempt is one start of a process, run in the background so that callers can
// stop waiting for it at their deadline while it goes on to serve later calls.
type startAttempt struct {
	done chan struct{} // closed when the start ends; p and err are set before
	p    *process
	err  error
}

// process is one running plugin.
type process struct {
	pc  *plugin.Client
	rpc scorerpb.ScorerClient
	pid int
	// osProc is the started process. Its handle is a pidfd, so a signal reaches this process or
	// none: never another that reused its pid after it exited and was reaped.
	osProc *os.Process
	pgid   int // the process group the plugin leads (killGroup)
}

// kill ends the plugin (go-plugin asks it to exit, then kills it) and then whatever it
// started that is still running, so a plugin that forks workers leaks none at a restart.
// go-plugin's Kill returns only once the plugin's stdout and stderr are closed, and a
// command a script left running in the background holds them open, so Kill gets killWait
// to end the plugin gracefully before the whole group is killed, which closes the pipes.
func (p *process) kill() {
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.pc.Kill()
	}()
	t := time.NewTimer(killWait)
	defer t.Stop()
	select {
	case <-done:
		killGroup(p.pgid)
	case <-t.C:
		killGroup(p.pgid)
		// A process that left the group (setsid) may hold the pipes still; Kill ends
		// without us once it exits.
		t.Reset(killWait)
		select {
		case <-done:
		case <-t.C:
		}
	}
}

// killWait is how long kill lets go-plugin end a plugin before killing its process group:
// go-plugin asks the plugin to exit and kills it after 2 s.
const killWait = 3 * time.Second

var (
	_ engine.Scorer    = (*Client)(nil)
	_ engine.Describer = (*Client)(nil)
	_ io.Closer        = (*Client)(nil)
)

// New checks cfg and returns a Client; with StartEager it also starts the process and
// returns its start error.
func New(ctx context.Context, cfg Config) (*Client, error) {
	cfg.setDefaults()
	if cfg.Command == "" {
		return nil, fmt.Errorf("plugin %q: no command", cfg.Name)
	}
	sum, err := hex.DecodeString(cfg.SHA256)
	if err != nil || len(sum) != sha256.Size {
		return nil, fmt.Errorf("plugin %q: sha256 must be 64 hex digits, got %q", cfg.Name, cfg.SHA256)
	}
	if cfg.Start != StartLazy && cfg.Start != StartEager {
		return nil, fmt.Errorf("plugin %q: start must be %q or %q, got %q", cfg.Name, StartLazy, StartEager, cfg.Start)
	}
	c := &Client{cfg: cfg, checksum: sum, closing: make(chan struct{})}
	c.info.Store(&engine.ScorerInfo{Name: cfg.Name, Where: "plugin", Threshold: engine.DefaultThreshold})
	c.checkDone = sync.NewCond(&c.mu)
	if cfg.Start == StartEager {
		if _, err := c.acquire(ctx); err != nil {
			_ = c.Close() // a start ctx gave up on must not leave a process behind
			return nil, err
		}
	}
	return c, nil
}

// Score sends req to the plugin. Errors are wrapped sentinels of this package, the
// engine's ErrBadScores, or the caller's context error.
func (c *Client) Score(ctx context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	if c.cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, c.cfg.Timeout, ErrTimeout)
		defer cancel()
	}
	p, err := c.acquire(ctx)
	if err != nil {
		return nil, err
	}
	out, err := p.rpc.Score(ctx, requestToPB(req), grpc.MaxCallRecvMsgSize(maxMessageBytes), grpc.MaxCallSendMsgSize(maxMessageBytes))
	if err != nil {
		return nil, c.callFailed(ctx, p, err)
	}
	resp := responseFromPB(out)
	if err := checkScores(resp, len(req.Lines)); err != nil {
		return nil, fmt.Errorf("plugin %q: %w", c.cfg.Name, err)
	}
	c.mu.Lock()
	c.failures = 0
	c.mu.Unlock()
	return resp, nil
}

// callFailed classifies a failed call, replaces a dead or hung process, and returns the
// error the caller sees.
func (c *Client) callFailed(ctx context.Context, p *process, err error) error {
	if ctx.Err() != nil {
		// The deadline or a cancellation ended the call. A plugin that keeps working on it
		// past HangGrace is hung: check in the background so the caller is not delayed.
		c.mu.Lock()
		if !c.closed {
			c.checks++
			go c.checkHung(p)
		}
		c.mu.Unlock()
		return c.ctxErr(ctx)
	}
	if status.Code(err) == codes.Unavailable || p.pc.Exited() {
		c.replace(p, "crashed")
		return fmt.Errorf("plugin %q: %w: %v", c.cfg.Name, ErrUnavailable, err)
	}
	return fmt.Errorf("plugin %q: %w", c.cfg.Name, errorFromStatus(err))
}

// ctxErr is the error for a call that ctx ended: ErrTimeout when the configured Timeout
// ended it, else the context's error.
func (c *Client) ctxErr(ctx context.Context) error {
	if errors.Is(context.Cause(ctx), ErrTimeout) {
		return fmt.Errorf("plugin %q: no answer within %s: %w", c.cfg.Name, c.cfg.Timeout, ErrTimeout)
	}
	return fmt.Errorf("plugin %q: %w", c.cfg.Name, ctx.Err())
}

// checkHung waits HangGrace, then asks the plugin whether a call is still running past its
// context; a plugin that says so, or does not answer, is replaced.
func (c *Client) checkHung(p *process) {
	defer func() {
		c.mu.Lock()
		c.checks--
		c.checkDone.Broadcast()
		c.mu.Unlock()
	}()
	t := time.NewTimer(c.cfg.HangGrace)
	defer t.Stop()
	select {
	case <-c.closing:
		return
	case <-t.C:
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.cfg.HangGrace+time.Second)
	defer cancel()
	pong, err := p.rpc.Ping(ctx, &scorerpb.PingRequest{GraceMs: c.cfg.HangGrace.Milliseconds()})
	if err == nil && pong.GetStuck() == 0 {
		return
	}
	c.replace(p, "hung")
}

// Ping checks that the plugin process is running and answering (starting it if needed).
func (c *Client) Ping(ctx context.Context) error {
	p, err := c.acquire(ctx)
	if err != nil {
		return err
	}
	if _, err := p.rpc.Ping(ctx, &scorerpb.PingRequest{}); err != nil {
		return c.callFailed(ctx, p, err)
	}
	return nil
}

// ScoresElsewhere is true: a plugin scores in its own process (engine.Elsewhere).
func (c *Client) ScoresElsewhere() bool { return true }

// Describe returns what the plugin said about itself at its last start; before the first
// start, only the configured name and the default threshold are known.
// It never waits for a start in progress.
func (c *Client) Describe() engine.ScorerInfo {
	return *c.info.Load()
}

// Starts returns how many processes the Client has started successfully.
func (c *Client) Starts() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.starts
}

// PID returns the process id of the running plugin, or 0 when none runs.
func (c *Client) PID() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.proc == nil {
		return 0
	}
	return c.proc.pid
}

// Close kills the plugin process and stops restarts. It is safe to call more than once.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	close(c.closing)
	p := c.proc
	c.proc = nil
	c.mu.Unlock()
	if p != nil {
		p.kill()
	}
	c.waitChecks()
	return nil
}

// waitChecks blocks until no hang check or start is running.
func (c *Client) waitChecks() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.checks > 0 {
		c.checkDone.Wait()
	}
}

// acquire returns the running process, starting one if there is none and the backoff
// allows. Concurrent callers share a single start; each waits for it only until its own
// ctx ends, and the start goes on without them.
func (c *Client) acquire(ctx context.Context) (*process, error) {
	c.mu.Lock()
	p, a, err := c.currentLocked(ctx)
	c.mu.Unlock()
	if p != nil || err != nil {
		return p, err
	}
	select {
	case <-a.done:
		return a.p, a.err
	case <-ctx.Done():
		return nil, c.ctxErr(ctx)
	}
}

// currentLocked returns the running process or, when there is none, the start in
// progress, beginning one if needed.
func (c *Client) currentLocked(ctx context.Context) (*process, *startAttempt, error) {
	if c.closed {
		return nil, nil, fmt.Errorf("plugin %q: %w", c.cfg.Name, ErrClosed)
	}
	if c.proc != nil {
		if !c.proc.pc.Exited() {
			return c.proc, nil, nil
		}
		go c.proc.kill() // reap and clean up, and end what it left running
		c.proc = nil
		c.failLocked()
	}
	if c.starting != nil {
		return nil, c.starting, nil
	}
	if wait := time.Until(c.retryAt); wait > 0 {
		return nil, nil, fmt.Errorf("plugin %q: %w: next restart in %s", c.cfg.Name, ErrUnavailable, wait.Round(time.Millisecond))
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, c.ctxErr(ctx)
	}
	a := &startAttempt{done: make(chan struct{})}
	c.starting = a
	c.checks++
	// Not the caller's deadline: a start the caller gave up on still serves the next call.
	go c.runStart(context.WithoutCancel(ctx), a)
	return nil, a, nil
}

// runStart performs attempt a and records its outcome.
func (c *Client) runStart(ctx context.Context, a *startAttempt) {
	p, info, err := c.start(ctx)
	c.mu.Lock()
	var orphan *process // started after Close: killed before Close may return
	switch {
	case err == nil && c.closed:
		orphan, p, err = p, nil, fmt.Errorf("plugin %q: %w", c.cfg.Name, ErrClosed)
	case err == nil:
		c.proc = p
		c.info.Store(&info)
		c.starts++
	default:
		c.failLocked()
	}
	a.p, a.err = p, err
	c.starting = nil
	close(a.done)
	c.mu.Unlock()
	if orphan != nil {
		orphan.kill()
	}
	c.mu.Lock()
	c.checks--
	c.checkDone.Broadcast()
	c.mu.Unlock()
}

// failLocked records a failure and schedules the next allowed restart.
func (c *Client) failLocked() {
	c.failures++
	c.retryAt = time.Now().Add(backoff(c.failures, c.cfg.BackoffMin, c.cfg.BackoffMax))
}

// backoff is 0 for the first failure (restart at once), then min, 2*min, 4*min... up to max.
func backoff(failures int, minD, maxD time.Duration) time.Duration {
	if failures <= 1 {
		return 0
	}
	d := float64(minD) * math.Pow(2, float64(failures-2))
	if d > float64(maxD) {
		return maxD
	}
	return time.Duration(d)
}

// replace kills p if it is still the current process, so the next call starts a new one.
func (c *Client) replace(p *process, why string) {
	c.mu.Lock()
	current := c.proc == p
	if current {
		c.proc = nil
		c.failLocked()
	}
	c.mu.Unlock()
	if !current {
		return
	}
	fmt.Fprintf(c.cfg.Logs, "plugin %q (pid %d) %s; restarting on next use\n", c.cfg.Name, p.pid, why)
	// A hung process would not exit gracefully: kill it and its group outright (what it
	// started would hold its pipes, and go-plugin's clean-up with them), then let go-plugin
	// clean up.
	if p.osProc != nil {
		_ = p.osProc.Kill()
	}
	killGroup(p.pgid)
	p.kill()
}

// start launches and handshakes a new process, then asks it to describe itself.
func (c *Client) start(ctx context.Context) (*process, engine.ScorerInfo, error) {
	info := engine.ScorerInfo{Name: c.cfg.Name, Where: "plugin", Threshold: engine.DefaultThreshold}
	bin, err := openPinned(c.cfg.Command, c.checksum)
	if err != nil {
		return nil, info, fmt.Errorf("plugin %q: %w", c.cfg.Name, err)
	}
	// The process has been started (or has failed to) when start returns: exec no longer
	// needs the descriptor.
	defer bin.Close()
	cmd := pinnedCommand(bin, c.cfg.Args...)
	cmd.Args[0] = c.cfg.Command // what the plugin sees as its name
	// Configured values come after the host's so that exec, which keeps the last value of a
	// duplicated key, lets them override it. go-plugin would append os.Environ() after
	// cmd.Env, hence SkipHostEnv: the host's environment is already here.
	cmd.Env = append(os.Environ(), c.cfg.Env...)
	cmd.SysProcAttr = hostProcAttr()
	pc := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  handshake(),
		Plugins:          plugin.PluginSet{pluginKey: &grpcPlugin{}},
		Cmd:              cmd,
		SkipHostEnv:      true,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:         true,
		StartTimeout:     c.cfg.StartTimeout,
		Stderr:           c.cfg.Logs,
		// What the plugin prints (fmt.Println, os.Stderr) once it serves: dropped by
		// default, so an operator's debugging output vanished.
		SyncStdout: &linePrefix{w: c.cfg.Logs, prefix: "plugin." + c.cfg.Name + " stdout: "},
		SyncStderr: &linePrefix{w: c.cfg.Logs, prefix: "plugin." + c.cfg.Name + " stderr: "},
		Logger: hclog.New(&hclog.LoggerOptions{Name: "plugin." + c.cfg.Name, Level: hclog.Warn,
			Output: &pinnedPathWriter{w: c.cfg.Logs, command: c.cfg.Command}}),
	})
	fail := func(sentinel, err error) (*process, engine.ScorerInfo, error) {
		// The group first: what the process started holds its pipes, and go-plugin's Kill
		// waits for them to close.
		if cmd.Process != nil {
			killGroup(cmd.Process.Pid)
		}
		pc.Kill()
		return nil, info, fmt.Errorf("plugin %q: %w: %v", c.cfg.Name, sentinel, startError(err, c.cfg.Command))
	}
	// No go-plugin SecureConfig: it would hash the file by name again; openPinned hashed
	// the very file that is started.
	rpcClient, err := pc.Client()
	if err != nil {
		return fail(ErrStart, err)
	}
	raw, err := rpcClient.Dispense(pluginKey)
	if err != nil {
		return fail(ErrStart, err)
	}
	// hostProcAttr's Setpgid: the plugin leads a group of its own, numbered as itself.
	p := &process{pc: pc, rpc: raw.(scorerpb.ScorerClient), osProc: cmd.Process, pgid: cmd.Process.Pid}
	if rc := pc.ReattachConfig(); rc != nil {
		p.pid = rc.Pid
	}
	dctx, cancel := context.WithTimeout(ctx, c.cfg.StartTimeout)
	defer cancel()
	d, err := p.rpc.Describe(dctx, &scorerpb.DescribeRequest{})
	if err != nil {
		return fail(ErrStart, fmt.Errorf("describe: %w", err))
	}
	info.Description = d.GetDescription()
	if t := d.GetThreshold(); t > 0 && t <= 1 {
		info.Threshold = t
	}
	return p, info, nil
}

// checkScores rejects an answer the engine could not use, so direct callers (the benchmark)
// get the same protection as the engine.
func checkScores(r *engine.ScoreResponse, n int) error {
	if len(r.Scores) != n {
		return fmt.Errorf("%w: %d scores for %d lines", engine.ErrBadScores, len(r.Scores), n)
	}
	for i, s := range r.Scores {
		if math.IsNaN(s) || s < 0 || s > 1 {
			return fmt.Errorf("%w: line %d scored %v", engine.ErrBadScores, i+1, s)
		}
	}
	return nil
}

// FileSHA256 returns the hex SHA-256 of the file at path, the value a plugin's sha256 pins.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// startError is go-plugin's error for a start that failed, told of the operator's command:
// its notes on the file started (path, mode, owner) describe /proc/self/fd/3 in this process
// (pinnedCommand), whose mode said a plugin that printed something else than its handshake
// was "not executable".
func startError(err error, command string) string {
	msg := err.Error()
	if i := strings.Index(msg, "\n\nAdditional notes about plugin:"); i >= 0 {
		msg = msg[:i]
	}
	return strings.ReplaceAll(msg, pinnedPath, command)
}

// pinnedPathWriter writes go-plugin's log lines with the operator's command in place of
// /proc/self/fd/3, the path every plugin is started by.
type pinnedPathWriter struct {
	w       io.Writer
	command string
}

func (p *pinnedPathWriter) Write(b []byte) (int, error) {
	if _, err := p.w.Write(bytes.ReplaceAll(b, []byte(pinnedPath), []byte(p.command))); err != nil {
		return 0, err
	}
	return len(b), nil
}

// linePrefix writes to w with prefix at the start of every line.
type linePrefix struct {
	w      io.Writer
	prefix string
	mid    bool // the last write ended inside a line
}

func (l *linePrefix) Write(b []byte) (int, error) {
	var out []byte
	for rest := b; len(rest) > 0; {
		if !l.mid {
			out = append(out, l.prefix...)
		}
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			out = append(out, rest...)
			l.mid = true
			break
		}
		out = append(out, rest[:i+1]...)
		rest = rest[i+1:]
		l.mid = false
	}
	if _, err := l.w.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}

// pinnedPath is the path a plugin is started by on Linux (pinnedCommand).
const pinnedPath = "/proc/self/fd/3"
